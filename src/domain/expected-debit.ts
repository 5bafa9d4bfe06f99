import type { JstDate } from "./jst.js";
import { type PeriodAmounts, periodAmounts, type PlanRecord, priceOf } from "./plan.js";
import { type CarriedDebt, carriedAmountOf, periodNumberOf, type SubscriptionRecord } from "./subscription.js";

/** What the dashboard expects a subscription's next debit to be (docs/guide/dashboard.md#recurring-billing). */
export type ExpectedDebitOf = Pick<SubscriptionRecord, "status" | "amount" | "startPeriod" | "endPeriod"> & {
  nextPeriod: string | null;
  nextDebitDate: JstDate | null;
};

/**
 * The amounts the cycle will charge for the next period, as it computes them (its own price or the
 * plan's version for the period, the discount by charged-period number); undefined when no next
 * debit is scheduled (paused, ended, or past its end period).
 */
export function expectedNextDebit(subscription: ExpectedDebitOf, plan: PlanRecord): PeriodAmounts | undefined {
  const period = subscription.nextPeriod;
  if (subscription.status !== "active" && subscription.status !== "past_due") return undefined;
  if (!period || !subscription.nextDebitDate) return undefined;
  if (subscription.endPeriod !== null && period > subscription.endPeriod) return undefined;
  const number = periodNumberOf(subscription.startPeriod, plan, period);
  const chargedNumber = plan.firstPeriod === "none" ? number - 1 : number;
  return periodAmounts(subscription.amount ?? priceOf(plan.prices, period).amount, plan.discount, chargedNumber);
}

/** One date of the debit calendar: how many debits and how many yen, of which `carriedAmount` carried (合算). */
export interface DebitCalendarDay {
  debitDate: JstDate;
  subscriptions: number;
  amount: number;
  carriedAmount: number;
}

/**
 * Sums groups of alike subscriptions (`count` of each) into calendar days, earliest first: each
 * debit is its period's final amount plus what it carries (合算), as the cycle charges it; nothing
 * for a 0-yen debit.
 */
export function debitCalendarOf(
  groups: readonly (ExpectedDebitOf & { planId: string; carry: readonly CarriedDebt[]; count: number })[],
  plans: ReadonlyMap<string, PlanRecord>,
): DebitCalendarDay[] {
  const days = new Map<JstDate, DebitCalendarDay>();
  for (const group of groups) {
    const plan = plans.get(group.planId);
    const amounts = plan && expectedNextDebit(group, plan);
    const carried = carriedAmountOf(group.carry);
    if (!amounts || amounts.finalAmount + carried === 0 || !group.nextDebitDate) continue;
    const day = days.get(group.nextDebitDate) ?? {
      debitDate: group.nextDebitDate,
      subscriptions: 0,
      amount: 0,
      carriedAmount: 0,
    };
    day.subscriptions += group.count;
    day.amount += (amounts.finalAmount + carried) * group.count;
    day.carriedAmount += carried * group.count;
    days.set(group.nextDebitDate, day);
  }
  return [...days.values()].sort((a, b) => a.debitDate.localeCompare(b.debitDate));
}
