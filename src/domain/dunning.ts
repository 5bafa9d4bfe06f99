import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { type BillingPeriod, periodOfDate } from "./billing-period.js";
import { addDays, type JstDate } from "./jst.js";
import {
  type BillingRules,
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
  | { kind: "give_up"; reason: Exclude<PastDueReason, "retrying"> };

/** The plan's settings with the API's zeros read as defaults: a retrying plan debits twice unless told. */
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
 * file cutoff passed is skipped); a date outside the failed debit's month gives up.
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
  let date = rules.calendar.businessDayFrom(addDays(failedDebitDate, dunning.retryAfterDays));
  while (rules.chargeMomentOf(date) <= now) date = rules.calendar.nextBusinessDay(date);
  if (periodOfDate(date) !== periodOfDate(failedDebitDate)) return { kind: "give_up", reason: "no_retry_date" };
  return { kind: "retry", attempt: attempt + 1, debitDate: date };
}

/**
 * A failed attempt of `period`: the subscription is past due with the reason (a final one stays
 * final); a plan that cancels on giving up ends it (SUBSCRIPTION_END_REASON_DUNNING_GAVE_UP).
 */
export function afterFailedAttempt(
  subscription: SubscriptionRecord,
  period: BillingPeriod,
  decision: FailureDecision,
  dunning: PlanDunning,
  now: Date,
): SubscriptionRecord {
  if (isFinal(subscription.status)) return subscription;
  const reason = decision.kind === "retry" ? "retrying" : decision.reason;
  const pastDue: SubscriptionRecord = {
    ...subscription,
    status: subscription.status === "paused" ? "paused" : "past_due",
    pastDueReason: reason,
    pastDuePeriod: period,
    updatedAt: now,
  };
  return decision.kind === "give_up" && dunning.cancelOnGiveUp
    ? endSubscription(pastDue, "cancelled", "dunning_gave_up", now)
    : pastDue;
}

/**
 * A successful attempt of `period`: the subscription is active again when that period was the
 * unpaid one, or a later period was paid while no re-debit is pending.
 */
export function afterPaidAttempt(
  subscription: SubscriptionRecord,
  period: BillingPeriod,
  now: Date,
): SubscriptionRecord {
  const unpaid = subscription.pastDuePeriod;
  if (unpaid === null || period < unpaid || (period > unpaid && subscription.pastDueReason === "retrying"))
    return subscription;
  return {
    ...subscription,
    status: subscription.status === "past_due" ? "active" : subscription.status,
    pastDueReason: null,
    pastDuePeriod: null,
    updatedAt: now,
  };
}
