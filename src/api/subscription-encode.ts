import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  DunningAction,
  FirstPeriodRule,
  PastDueReason as PastDueReasonProto,
  IntervalUnit,
  type Plan,
  PlanSchema,
  type Subscription,
  SubscriptionEndReason,
  SubscriptionSchema,
  SubscriptionStatus,
} from "../../gen/payments/v1/subscription_service_pb.js";
import { latestPriceOf, type PlanDiscount, type PlanDunning, type PlanRecord } from "../domain/plan.js";
import { dunningOf } from "../domain/dunning.js";
import { carriedAmountOf, type PastDueReason } from "../domain/subscription.js";
import { defaultNoticeDays } from "../domain/subscription-mail.js";
import type {
  SubscriptionAttemptRecord,
  SubscriptionEndReason as EndReason,
  SubscriptionPeriodRecord,
  SubscriptionRecord,
  SubscriptionStatus as Status,
} from "../domain/subscription.js";
import type { PlanInput } from "../flows/plans.js";
import type { CreatePlanRequest } from "../../gen/payments/v1/subscription_service_pb.js";

/** CreatePlan's request as the flow takes it (the proto's rules already checked it). */
export function decodePlanInput(req: CreatePlanRequest): PlanInput {
  const off = req.discount?.off;
  const periods = req.discount?.periods ?? 0;
  const discount: PlanDiscount | null =
    off?.case === "amount"
      ? { kind: "amount", amount: off.value, periods }
      : off?.case === "percent"
        ? { kind: "percent", percent: off.value, periods }
        : null;
  return {
    name: req.name,
    amount: req.amount,
    intervalUnit: req.intervalUnit === IntervalUnit.YEAR ? "year" : "month",
    intervalCount: req.intervalCount,
    debitDay: req.debitOnLastDay ? "last" : req.debitDay,
    firstPeriod: req.firstPeriod === FirstPeriodRule.NONE ? "none" : "full",
    discount,
    dunning: dunningOf(
      req.dunning && {
        action: dunningActionsOf.get(req.dunning.action) ?? "stop",
        retryAfterDays: req.dunning.retryAfterDays,
        maxAttempts: req.dunning.maxAttempts,
        cancelOnGiveUp: req.dunning.cancelOnGiveUp,
      },
    ),
    noticeDays: req.noticeDays ?? defaultNoticeDays,
    metadata: req.metadata,
  };
}

export function encodePlan(plan: PlanRecord): Plan {
  const discount = plan.discount;
  return create(PlanSchema, {
    planId: plan.id,
    name: plan.name,
    amount: latestPriceOf(plan).amount,
    intervalUnit: plan.intervalUnit === "year" ? IntervalUnit.YEAR : IntervalUnit.MONTH,
    intervalCount: plan.intervalCount,
    debitDay: plan.debitDay === "last" ? 0 : plan.debitDay,
    debitOnLastDay: plan.debitDay === "last",
    firstPeriod: plan.firstPeriod === "none" ? FirstPeriodRule.NONE : FirstPeriodRule.FULL,
    discount: discount
      ? {
          off:
            discount.kind === "amount"
              ? { case: "amount", value: discount.amount }
              : { case: "percent", value: discount.percent },
          periods: discount.periods,
        }
      : undefined,
    prices: plan.prices.map((price) => ({
      version: price.version,
      amount: price.amount,
      fromPeriod: price.fromPeriod ?? "",
      createdAt: timestampFromDate(price.createdAt),
    })),
    metadata: plan.metadata,
    dunning: {
      action: dunningActions[plan.dunning.action],
      retryAfterDays: plan.dunning.retryAfterDays,
      maxAttempts: plan.dunning.maxAttempts,
      cancelOnGiveUp: plan.dunning.cancelOnGiveUp,
    },
    noticeDays: plan.noticeDays,
    createdAt: timestampFromDate(plan.createdAt),
    updatedAt: timestampFromDate(plan.updatedAt),
  });
}

const dunningActions: Readonly<Record<PlanDunning["action"], DunningAction>> = {
  stop: DunningAction.STOP,
  retry: DunningAction.RETRY,
  carry_over: DunningAction.CARRY_OVER,
};
const dunningActionsOf = new Map(
  Object.entries(dunningActions).map(([name, value]) => [value, name as PlanDunning["action"]]),
);

const statuses: Readonly<Record<Status, SubscriptionStatus>> = {
  active: SubscriptionStatus.ACTIVE,
  paused: SubscriptionStatus.PAUSED,
  past_due: SubscriptionStatus.PAST_DUE,
  cancelled: SubscriptionStatus.CANCELLED,
  ended: SubscriptionStatus.ENDED,
};

const endReasons: Readonly<Record<EndReason, SubscriptionEndReason>> = {
  cancelled: SubscriptionEndReason.CANCELLED,
  end_period: SubscriptionEndReason.END_PERIOD,
  contract_deactivated: SubscriptionEndReason.CONTRACT_DEACTIVATED,
  dunning_gave_up: SubscriptionEndReason.DUNNING_GAVE_UP,
};

const pastDueReasons: Readonly<Record<PastDueReason, PastDueReasonProto>> = {
  retrying: PastDueReasonProto.RETRYING,
  not_retried: PastDueReasonProto.NOT_RETRIED,
  not_retryable: PastDueReasonProto.NOT_RETRYABLE,
  attempts_exhausted: PastDueReasonProto.ATTEMPTS_EXHAUSTED,
  no_retry_date: PastDueReasonProto.NO_RETRY_DATE,
  carried_over: PastDueReasonProto.CARRIED_OVER,
};

export function encodeSubscription(
  subscription: SubscriptionRecord,
  periods: readonly SubscriptionPeriodRecord[] = [],
  attempts: readonly SubscriptionAttemptRecord[] = [],
): Subscription {
  // A next period past the end period is never charged: the subscription ends there.
  const charges =
    subscription.nextPeriod !== null &&
    (subscription.endPeriod === null || subscription.nextPeriod <= subscription.endPeriod);
  return create(SubscriptionSchema, {
    subscriptionId: subscription.id,
    customerId: subscription.customerId,
    contractId: subscription.contractId,
    planId: subscription.planId,
    status: statuses[subscription.status],
    amount: subscription.amount ?? 0,
    startPeriod: subscription.startPeriod,
    endPeriod: subscription.endPeriod ?? "",
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    endReason: subscription.endReason ? endReasons[subscription.endReason] : SubscriptionEndReason.UNSPECIFIED,
    nextPeriod: charges ? (subscription.nextPeriod ?? "") : "",
    nextDebitDate: charges ? (subscription.nextDebitDate ?? "") : "",
    description: subscription.description,
    metadata: subscription.metadata,
    periods: periods.map((period) => ({
      period: period.period,
      number: period.number,
      debitDate: period.debitDate,
      initialAmount: period.amounts.initialAmount,
      discount: period.amounts.discount,
      finalAmount: period.amounts.finalAmount,
      chargeId: period.chargeId ?? "",
      priceVersion: period.priceVersion,
      createdAt: timestampFromDate(period.createdAt),
      carriedAmount: carriedAmountOf(period.carried),
      carriedPeriods: period.carried.map((debt) => debt.period),
    })),
    createdAt: timestampFromDate(subscription.createdAt),
    updatedAt: timestampFromDate(subscription.updatedAt),
    endedAt: subscription.endedAt ? timestampFromDate(subscription.endedAt) : undefined,
    pastDueReason: subscription.pastDueReason
      ? pastDueReasons[subscription.pastDueReason]
      : PastDueReasonProto.UNSPECIFIED,
    pastDuePeriod: subscription.pastDuePeriod ?? "",
    carriedAmount: carriedAmountOf(subscription.carry),
    attempts: attempts.map((attempt) => ({
      period: attempt.period,
      attempt: attempt.attempt,
      chargeId: attempt.chargeId,
      debitDate: attempt.debitDate,
      status: attempt.chargeStatus,
      createdAt: timestampFromDate(attempt.createdAt),
    })),
  });
}
