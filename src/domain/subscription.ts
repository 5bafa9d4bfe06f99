import type { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import type { BankCalendar } from "./bank-calendar.js";
import { addMonths, type BillingPeriod, debitDateOfPeriod, monthsBetween } from "./billing-period.js";
import type { JstDate } from "./jst.js";
import { intervalMonthsOf, type PeriodAmounts, periodAmounts, type PlanRecord, priceOf } from "./plan.js";
import type { Metadata } from "./records.js";
import { RequestRefusal } from "./request-refusal.js";

/**
 * A customer's subscription to a plan (docs/guide/recurring-billing.md#subscriptions): ACTIVE
 * charges each period when its charge is due; PAUSED lets periods pass uncharged; CANCELLED and
 * ENDED are final. PAST_DUE: a period is unpaid (domain/dunning.ts); it is still charged each period.
 */
export type SubscriptionStatus = "active" | "paused" | "past_due" | "cancelled" | "ended";

/** Why a subscription is past due (PAST_DUE_REASON_*; the decisions are domain/dunning.ts's). */
export type PastDueReason =
  | "retrying"
  | "not_retried"
  | "not_retryable"
  | "attempts_exhausted"
  | "no_retry_date"
  | "carried_over";

/**
 * 合算 (DUNNING_ACTION_CARRY_OVER): an unpaid period's amount added to a later period's debit, as
 * attempt `attempt` of that unpaid period (domain/dunning.ts counts it against max_attempts).
 */
export interface CarriedDebt {
  period: BillingPeriod;
  attempt: number;
  amount: number;
}

/** Why a subscription stopped: CancelSubscription, its end period passed, or its contract was deactivated. */
export type SubscriptionEndReason = "cancelled" | "end_period" | "contract_deactivated" | "dunning_gave_up";

export interface SubscriptionRecord {
  id: string;
  merchantId: string;
  customerId: string;
  contractId: string;
  planId: string;
  /** A price of its own instead of the plan's versions; null: the plan's. */
  amount: number | null;
  startPeriod: BillingPeriod;
  endPeriod: BillingPeriod | null;
  status: SubscriptionStatus;
  cancelAtPeriodEnd: boolean;
  endReason: SubscriptionEndReason | null;
  /** The next period to charge and its debit date; null once the subscription is final. */
  nextPeriod: BillingPeriod | null;
  nextDebitDate: JstDate | null;
  /** The latest period recorded (charged, or free), null before the first. */
  lastPeriod: BillingPeriod | null;
  description: string;
  metadata: Metadata;
  createdAt: Date;
  updatedAt: Date;
  endedAt: Date | null;
  /** While past due: why, and the unpaid period (kept when dunning cancels it). */
  pastDueReason: PastDueReason | null;
  pastDuePeriod: BillingPeriod | null;
  /** 合算: the unpaid amounts the next charged period's debit adds to its own, oldest first. */
  carry: CarriedDebt[];
}

/** A recorded period: its amounts are fixed when it is charged, whatever the plan later becomes. */
export interface SubscriptionPeriodRecord {
  subscriptionId: string;
  merchantId: string;
  period: BillingPeriod;
  number: number;
  debitDate: JstDate;
  priceVersion: number;
  amounts: PeriodAmounts;
  /** Its first attempt's charge; null when nothing is charged (a final amount of 0 and nothing carried). */
  chargeId: string | null;
  /** 合算: earlier periods' unpaid amounts its charge adds to its own final amount. */
  carried: CarriedDebt[];
  createdAt: Date;
}

/** What a period's charge debits: its own final amount and whatever was carried into it (合算). */
export function debitAmountOf(period: Pick<SubscriptionPeriodRecord, "amounts" | "carried">): number {
  return period.amounts.finalAmount + carriedAmountOf(period.carried);
}

export function carriedAmountOf(carried: readonly CarriedDebt[]): number {
  return carried.reduce((sum, debt) => sum + debt.amount, 0);
}

/** One debit of a period (attempt 1: its charge; later: re-debits), with its charge's status. */
export interface SubscriptionAttemptRecord {
  subscriptionId: string;
  period: BillingPeriod;
  attempt: number;
  chargeId: string;
  debitDate: JstDate;
  chargeStatus: ChargeStatus;
  createdAt: Date;
}

/** What the schedule needs from outside: the bank calendar and when a debit date's charges must exist. */
export interface BillingRules {
  readonly calendar: BankCalendar;
  /** The connector's moment: the Zengin file cutoff of the date, or the date's start (simulated bank). */
  chargeMomentOf(debitDate: JstDate): Date;
}

export type PlanSchedule = Pick<PlanRecord, "intervalUnit" | "intervalCount" | "debitDay" | "firstPeriod">;

/** The stable reasons of subscription refusals (docs/reference/errors.md#subscriptions). */
export const subscriptionReasons = Object.freeze({
  planNotFound: "PLAN_NOT_FOUND",
  subscriptionNotFound: "SUBSCRIPTION_NOT_FOUND",
  contractNotActive: "CONTRACT_NOT_ACTIVE",
  startPeriodPassed: "START_PERIOD_PASSED",
  periodAlreadyCharged: "PLAN_PERIOD_ALREADY_CHARGED",
  subscriptionStateConflict: "SUBSCRIPTION_STATE_CONFLICT",
});

/** 1 for the start period, 2 for the next one of the plan's interval, … */
export function periodNumberOf(startPeriod: BillingPeriod, plan: PlanSchedule, period: BillingPeriod): number {
  return monthsBetween(startPeriod, period) / intervalMonthsOf(plan) + 1;
}

/** The first period a subscription charges: its start, or the next one under FIRST_PERIOD_RULE_NONE. */
export function firstChargedPeriodOf(startPeriod: BillingPeriod, plan: PlanSchedule): BillingPeriod {
  return plan.firstPeriod === "none" ? addMonths(startPeriod, intervalMonthsOf(plan)) : startPeriod;
}

/** The period with its debit date. */
export function scheduled(
  period: BillingPeriod,
  plan: PlanSchedule,
  rules: BillingRules,
): { period: BillingPeriod; debitDate: JstDate } {
  return { period, debitDate: debitDateOfPeriod(period, plan.debitDay, rules.calendar) };
}

/**
 * A new subscription's first charged period, refused when its charge is already due (it would be
 * created late, or never): start from a later period.
 */
export function firstScheduleOf(
  startPeriod: BillingPeriod,
  plan: PlanSchedule,
  rules: BillingRules,
  now: Date,
): { period: BillingPeriod; debitDate: JstDate } {
  const first = scheduled(firstChargedPeriodOf(startPeriod, plan), plan, rules);
  if (rules.chargeMomentOf(first.debitDate) <= now)
    throw new RequestRefusal(
      "precondition",
      `start_period: the charge of period ${first.period} (debit date ${first.debitDate}) is already due; start from a later period`,
      { reason: subscriptionReasons.startPeriodPassed, facts: { period: first.period, debitDate: first.debitDate } },
    );
  return first;
}

/**
 * From `from` (a period of the subscription's sequence), the first period whose charge is not yet
 * due: what a resumed subscription charges next (the periods it was paused through pass uncharged).
 */
export function nextScheduleFrom(
  from: BillingPeriod,
  plan: PlanSchedule,
  rules: BillingRules,
  now: Date,
): { period: BillingPeriod; debitDate: JstDate } {
  let next = scheduled(from, plan, rules);
  while (rules.chargeMomentOf(next.debitDate) <= now)
    next = scheduled(addMonths(next.period, intervalMonthsOf(plan)), plan, rules);
  return next;
}

/** What the cycle does with a subscription whose next charge is due. */
export type DuePeriodDecision =
  | { kind: "end"; reason: "end_period" }
  | {
      kind: "charge";
      period: SubscriptionPeriodRecord;
      /** False for a period whose final amount is 0 with nothing carried (recorded, nothing debited). */
      debit: boolean;
      next: { period: BillingPeriod; debitDate: JstDate };
    };

/**
 * The due period of an ACTIVE subscription: its amounts (its own price, or the plan's version for
 * the period; the discount by charged-period number) and the subscription's carried debts (合算),
 * or its end when the period is past its end.
 */
export function decideDuePeriod(
  subscription: SubscriptionRecord,
  plan: PlanRecord,
  rules: BillingRules,
  now: Date,
): DuePeriodDecision {
  const period = subscription.nextPeriod;
  if (!period || !subscription.nextDebitDate) throw new Error(`subscription ${subscription.id} has no next period`);
  if (subscription.endPeriod !== null && period > subscription.endPeriod) return { kind: "end", reason: "end_period" };
  const price = priceOf(plan.prices, period);
  const number = periodNumberOf(subscription.startPeriod, plan, period);
  const chargedNumber = plan.firstPeriod === "none" ? number - 1 : number;
  const amounts = periodAmounts(subscription.amount ?? price.amount, plan.discount, chargedNumber);
  return {
    kind: "charge",
    period: {
      subscriptionId: subscription.id,
      merchantId: subscription.merchantId,
      period,
      number,
      debitDate: subscription.nextDebitDate,
      priceVersion: subscription.amount === null ? price.version : 0,
      amounts,
      chargeId: null,
      carried: subscription.carry,
      createdAt: now,
    },
    debit: amounts.finalAmount + carriedAmountOf(subscription.carry) > 0,
    next: scheduled(addMonths(period, intervalMonthsOf(plan)), plan, rules),
  };
}

/** The subscription ended: final, nothing more to charge. */
export function endSubscription(
  subscription: SubscriptionRecord,
  status: "cancelled" | "ended",
  reason: SubscriptionEndReason,
  now: Date,
): SubscriptionRecord {
  return {
    ...subscription,
    status,
    endReason: reason,
    nextPeriod: null,
    nextDebitDate: null,
    // Nothing will be charged again: a carried amount stays unpaid (past_due_period says which).
    carry: [],
    updatedAt: now,
    endedAt: now,
  };
}

export function isFinal(status: SubscriptionStatus): boolean {
  return status === "cancelled" || status === "ended";
}

function stateConflict(subscription: SubscriptionRecord, action: string): RequestRefusal {
  return new RequestRefusal(
    "precondition",
    `subscription ${subscription.id} is ${subscription.status}: cannot ${action}`,
    {
      reason: subscriptionReasons.subscriptionStateConflict,
      facts: { status: subscription.status },
    },
  );
}

export function pauseSubscription(subscription: SubscriptionRecord, now: Date): SubscriptionRecord {
  if (subscription.status === "paused") return subscription;
  if (subscription.status !== "active") throw stateConflict(subscription, "pause");
  return { ...subscription, status: "paused", updatedAt: now };
}

/** Resumed from the first period of its sequence whose charge is not yet due. */
export function resumeSubscription(
  subscription: SubscriptionRecord,
  plan: PlanSchedule,
  rules: BillingRules,
  now: Date,
): SubscriptionRecord {
  if (subscription.status === "active") return subscription;
  if (subscription.status !== "paused" || !subscription.nextPeriod) throw stateConflict(subscription, "resume");
  const next = nextScheduleFrom(subscription.nextPeriod, plan, rules, now);
  return { ...subscription, status: "active", nextPeriod: next.period, nextDebitDate: next.debitDate, updatedAt: now };
}

/**
 * Cancels now, or at the end of the period last charged: that period becomes the end period and
 * the subscription ends when the next one would be charged. With no period charged yet, at
 * period end is now.
 */
export function cancelSubscription(
  subscription: SubscriptionRecord,
  atPeriodEnd: boolean,
  now: Date,
): SubscriptionRecord {
  if (isFinal(subscription.status)) return subscription;
  if (!atPeriodEnd || subscription.lastPeriod === null)
    return endSubscription(subscription, "cancelled", "cancelled", now);
  const endPeriod =
    subscription.endPeriod !== null && subscription.endPeriod < subscription.lastPeriod
      ? subscription.endPeriod
      : subscription.lastPeriod;
  return { ...subscription, endPeriod, cancelAtPeriodEnd: true, updatedAt: now };
}
