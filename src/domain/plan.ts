import type { BillingPeriod, DebitDay } from "./billing-period.js";
import type { Metadata } from "./records.js";

/** How often a plan bills: every `count` months or years. */
export type IntervalUnit = "month" | "year";

/** Whether a subscription's first period is charged ("none": billing starts with the second). */
export type FirstPeriodRule = "full" | "none";

/** Yen or percent off the first `periods` charged periods (初月無料: 100 percent for 1). */
export type PlanDiscount =
  | { kind: "amount"; amount: number; periods: number }
  | { kind: "percent"; percent: number; periods: number };

/**
 * A plan's dunning (docs/guide/recurring-billing.md#re-debits-and-dunning): on 資金不足 either a
 * re-debit (再振替) `retryAfterDays` after the failed debit, on a business day of the same month;
 * or the unpaid amount added to the next period's debit (合算, "carry_over"); at most
 * `maxAttempts` debits of a period in all either way; or none ("stop"). `cancelOnGiveUp`: a period left
 * unpaid cancels the subscription instead of leaving it past due.
 */
export interface PlanDunning {
  action: "stop" | "retry" | "carry_over";
  retryAfterDays: number;
  maxAttempts: number;
  cancelOnGiveUp: boolean;
}

/**
 * A price version: `amount` yen per period from `fromPeriod` on (null for the first version, which
 * covers every period). A later version never changes a period already charged
 * (docs/guide/recurring-billing.md#price-changes).
 */
export interface PlanPrice {
  version: number;
  amount: number;
  fromPeriod: BillingPeriod | null;
  createdAt: Date;
}

export interface PlanRecord {
  id: string;
  merchantId: string;
  name: string;
  intervalUnit: IntervalUnit;
  intervalCount: number;
  debitDay: DebitDay;
  firstPeriod: FirstPeriodRule;
  discount: PlanDiscount | null;
  /** What a 資金不足 failure leads to (domain/dunning.ts). */
  dunning: PlanDunning;
  /** Days before each debit date the 振替予定のお知らせ is sent; 0: none. */
  noticeDays: number;
  /** Oldest first; never empty. */
  prices: PlanPrice[];
  metadata: Metadata;
  createdAt: Date;
  updatedAt: Date;
}

/** The months between two periods of the plan. */
export function intervalMonthsOf(plan: Pick<PlanRecord, "intervalUnit" | "intervalCount">): number {
  return plan.intervalUnit === "year" ? plan.intervalCount * 12 : plan.intervalCount;
}

/** The price a period is charged at: the latest version whose `fromPeriod` is not after it. */
export function priceOf(prices: readonly PlanPrice[], period: BillingPeriod): PlanPrice {
  let chosen = prices[0];
  for (const price of prices)
    if ((price.fromPeriod === null || price.fromPeriod <= period) && price.version > chosen.version) chosen = price;
  return chosen;
}

/** The plan's current price: its latest version. */
export function latestPriceOf(plan: Pick<PlanRecord, "prices">): PlanPrice {
  return plan.prices[plan.prices.length - 1];
}

/** The three amounts of a charge (docs/reference/contract.md#subscription-charges): final = initial − discount. */
export interface PeriodAmounts {
  initialAmount: number;
  discount: number;
  finalAmount: number;
}

/**
 * The amounts of a charged period: the discount applies to the first `periods` charged periods
 * (`chargedNumber` 1, 2, …), a percentage rounded down to the yen, never more than the amount.
 *
 * @example periodAmounts(1000, { kind: "percent", percent: 50, periods: 3 }, 2) // { 1000, 500, 500 }
 */
export function periodAmounts(
  initialAmount: number,
  discount: PlanDiscount | null,
  chargedNumber: number,
): PeriodAmounts {
  const off =
    !discount || chargedNumber < 1 || chargedNumber > discount.periods
      ? 0
      : discount.kind === "amount"
        ? Math.min(discount.amount, initialAmount)
        : Math.floor((initialAmount * discount.percent) / 100);
  return { initialAmount, discount: off, finalAmount: initialAmount - off };
}
