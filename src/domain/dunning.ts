import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { type BillingPeriod, periodOfDate } from "./billing-period.js";
import { addDays, type JstDate } from "./jst.js";
import {
  type BillingRules,
  type CarriedDebt,
  endSubscription,
  isFinal,
  type PastDueReason,
  type SubscriptionRecord,
} from "./subscription.js";
import type { PlanDunning } from "./plan.js";

export const defaultDunning: PlanDunning = Object.freeze({
  action: "stop",
  retryAfterDays: 5,
  maxAttempts: 1,
  cancelOnGiveUp: false,
});

/** What a failed attempt of a period leads to. */
export type FailureDecision =
  | { kind: "retry"; attempt: number; debitDate: JstDate }
  | { kind: "carry"; attempt: number }
  | { kind: "give_up"; reason: Exclude<PastDueReason, "retrying" | "carried_over"> };

/** The plan's settings with the API's zeros read as defaults: a retrying or carrying plan debits twice unless told. */
export function dunningOf(input: Partial<PlanDunning> | undefined): PlanDunning {
  const action = input?.action ?? "stop";
  return {
    action,
    retryAfterDays: input?.retryAfterDays || defaultDunning.retryAfterDays,
    maxAttempts: action === "stop" ? 1 : input?.maxAttempts || 2,
    cancelOnGiveUp: input?.cancelOnGiveUp ?? false,
  };
}

/**
 * After attempt `attempt` of a period failed: only 資金不足 is re-debited, never another failure.
 * The re-debit's date is the first business day from `retryAfterDays` after the failed debit date
 * whose charges are not yet due (`now` is when the failure is known: under Zengin a date whose
 * file cutoff passed is skipped); a date outside the failed debit's month gives up. A carrying
 * plan (合算) adds the amount to the next period's debit as the next attempt.
 */
export function decideAfterFailure(input: {
  dunning: PlanDunning;
  errorType: ErrorType;
  attempt: number;
  failedDebitDate: JstDate;
  rules: BillingRules;
  now: Date;
}): FailureDecision {
  const { dunning, attempt, failedDebitDate, rules, now } = input;
  if (input.errorType !== ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS)
    return { kind: "give_up", reason: "not_retryable" };
  if (dunning.action === "stop") return { kind: "give_up", reason: "not_retried" };
  if (attempt >= dunning.maxAttempts) return { kind: "give_up", reason: "attempts_exhausted" };
  if (dunning.action === "carry_over") return { kind: "carry", attempt: attempt + 1 };
  let date = rules.calendar.businessDayFrom(addDays(failedDebitDate, dunning.retryAfterDays));
  while (rules.chargeMomentOf(date) <= now) date = rules.calendar.nextBusinessDay(date);
  if (periodOfDate(date) !== periodOfDate(failedDebitDate)) return { kind: "give_up", reason: "no_retry_date" };
  return { kind: "retry", attempt: attempt + 1, debitDate: date };
}

/**
 * A failed attempt of `period` (its unpaid `amount`): the subscription is past due with the reason
 * (a final one stays final); a carry (合算) adds the amount to the next charged period's debit; a
 * plan that cancels on giving up ends it (SUBSCRIPTION_END_REASON_DUNNING_GAVE_UP).
 */
export function afterFailedAttempt(
  subscription: SubscriptionRecord,
  period: BillingPeriod,
  amount: number,
  decision: FailureDecision,
  dunning: PlanDunning,
  now: Date,
): SubscriptionRecord {
  if (isFinal(subscription.status)) return subscription;
  const reason = decision.kind === "retry" ? "retrying" : decision.kind === "carry" ? "carried_over" : decision.reason;
  const carried: CarriedDebt[] = decision.kind === "carry" ? [{ period, attempt: decision.attempt, amount }] : [];
  const pastDue: SubscriptionRecord = {
    ...subscription,
    status: subscription.status === "paused" ? "paused" : "past_due",
    pastDueReason: reason,
    pastDuePeriod: period,
    carry: [...subscription.carry, ...carried].sort((a, b) => a.period.localeCompare(b.period)),
    updatedAt: now,
  };
  return decision.kind === "give_up" && dunning.cancelOnGiveUp
    ? endSubscription(pastDue, "cancelled", "dunning_gave_up", now)
    : pastDue;
}

/**
 * A successful attempt of `period`: the subscription is active again when that period was the
 * unpaid one, or a later period was paid while no re-debit or carried amount is pending.
 */
export function afterPaidAttempt(
  subscription: SubscriptionRecord,
  period: BillingPeriod,
  now: Date,
): SubscriptionRecord {
  const unpaid = subscription.pastDuePeriod;
  // A later period paid while a re-debit or a carried amount (合算) is still to come leaves it past due.
  const pending = subscription.pastDueReason === "retrying" || subscription.carry.length > 0;
  if (unpaid === null || period < unpaid || (period > unpaid && pending)) return subscription;
  return {
    ...subscription,
    status: subscription.status === "past_due" ? "active" : subscription.status,
    pastDueReason: null,
    pastDuePeriod: null,
    updatedAt: now,
  };
}
