import { ChargeStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import type { SettlementDecision } from "../domain/charge-settlement.js";
import { afterFailedAttempt, afterPaidAttempt, decideAfterFailure, type FailureDecision } from "../domain/dunning.js";
import { newId } from "../domain/ids.js";
import { newOffSessionCharge } from "../domain/off-session-charge.js";
import type { ChargeRecord } from "../domain/records.js";
import { type CarriedDebt, carriedAmountOf, type SubscriptionRecord } from "../domain/subscription.js";
import { subscriptionEventContent } from "../domain/webhook-content.js";
import { insertCharges } from "../storage/charges.js";
import { recordEvents } from "../storage/events.js";
import { enqueueJob } from "../storage/jobs.js";
import { findMerchant } from "../storage/merchants.js";
import { lockPlans } from "../storage/plans.js";
import { findAttemptsOfCharges, insertAttempt } from "../storage/subscription-attempts.js";
import { findPeriod, lockSubscriptions, saveSubscription } from "../storage/subscriptions.js";
import type { Tx } from "../storage/transactor.js";
import { billingRulesOf } from "./bank-rules.js";
import type { FlowContext } from "./flow-context.js";
import { scheduleDebits } from "./subscription-cycle.js";
import { failureMailRef } from "./subscription-mail.js";

/**
 * Re-debits and dunning (docs/guide/recurring-billing.md#re-debits-and-dunning), decided in the
 * settlement's transaction (flows/charge-settlement.ts, the one settlement path): a subscription
 * charge that failed makes its subscription past due, with a re-debit when the plan asks for one
 * and the failure is 資金不足 (or, 合算, the unpaid amount carried to the next period's debit), the
 * PAST_DUE event and the customer's e-mail (a job); one that succeeded may return it to active.
 */
export async function followSubscriptionCharges(
  ctx: FlowContext,
  trx: Tx,
  decisions: readonly SettlementDecision[],
  now: Date,
): Promise<void> {
  const followed = decisions.filter(({ charge, settled }) => settled && charge.metadata.subscription_id);
  // Read for all at once: a result file settles thousands of subscriptions' charges together.
  const attempts = await findAttemptsOfCharges(
    trx,
    followed.map(({ charge }) => charge.id),
  );
  const subscriptions = await subscriptionsOf(ctx, trx, followed, attempts);
  for (const { charge } of followed) {
    const attempt = attempts.get(charge.id);
    const subscription = attempt && subscriptions.get(attempt.subscriptionId);
    if (!attempt || !subscription) continue;
    // Later charges of the same subscription in this batch see what this one made of it.
    if (charge.status === ChargeStatus.SUCCESS) {
      const next = afterPaidAttempt(subscription, attempt.period, now);
      if (next !== subscription) await saveSubscription(trx, next);
      subscriptions.set(next.id, next);
      continue;
    }
    const next = await followFailure(ctx, trx, subscription, charge, attempt, now);
    subscriptions.set(next.id, next);
  }
}

/** The charges' subscriptions, locked, by id (each merchant's own only). */
async function subscriptionsOf(
  ctx: FlowContext,
  trx: Tx,
  followed: readonly SettlementDecision[],
  attempts: ReadonlyMap<string, { subscriptionId: string }>,
): Promise<Map<string, SubscriptionRecord>> {
  const idsByMerchant = new Map<string, Set<string>>();
  for (const { charge } of followed) {
    const attempt = attempts.get(charge.id);
    if (!attempt) continue;
    const ids = idsByMerchant.get(charge.merchantId) ?? new Set<string>();
    idsByMerchant.set(charge.merchantId, ids.add(attempt.subscriptionId));
  }
  const subscriptions = new Map<string, SubscriptionRecord>();
  for (const [merchantId, ids] of idsByMerchant)
    for (const [id, subscription] of await lockSubscriptions(ctx.tx, trx, merchantId, [...ids]))
      subscriptions.set(id, subscription);
  return subscriptions;
}

async function followFailure(
  ctx: FlowContext,
  trx: Tx,
  subscription: SubscriptionRecord,
  charge: ChargeRecord,
  attempt: { period: string; attempt: number; debitDate: string },
  now: Date,
): Promise<SubscriptionRecord> {
  if (subscription.status === "cancelled" || subscription.status === "ended") return subscription;
  const plan = (await lockPlans(ctx.tx, trx, [subscription.planId])).get(subscription.planId);
  const period = await findPeriod(trx, subscription.id, attempt.period);
  if (!plan || !period) return subscription;
  const rules = billingRulesOf(ctx.config);
  // The unpaid debts of the charge, oldest first: those carried into a period's charge (合算), then its own.
  const debts: CarriedDebt[] = [
    ...(attempt.attempt === 1 ? period.carried : []),
    { period: attempt.period, attempt: attempt.attempt, amount: period.amounts.finalAmount },
  ];
  let next = subscription;
  let decision: FailureDecision | undefined;
  for (const debt of debts) {
    decision = decideAfterFailure({
      dunning: plan.dunning,
      errorType: charge.errorType,
      attempt: debt.attempt,
      failedDebitDate: attempt.debitDate,
      rules,
      now,
    });
    next = afterFailedAttempt(next, debt.period, debt.amount, decision, plan.dunning, now);
  }
  await saveSubscription(trx, next);
  const retry =
    decision?.kind === "retry"
      ? await scheduleRedebit(ctx, trx, next, charge, attempt.period, decision, now)
      : undefined;
  const merchantName = (await findMerchant(trx, subscription.merchantId))?.name ?? "";
  const dunning = {
    attempt: attempt.attempt,
    retryDebitDate: retry?.debitDate,
    retryChargeId: retry?.chargeId,
    carriedAmount: carriedAmountOf(next.carry),
  };
  const content = subscriptionEventContent(next, merchantName, now, undefined, dunning);
  await recordEvents(trx, [
    {
      merchantId: next.merchantId,
      type: EventType.SUBSCRIPTION_PAST_DUE,
      chargeId: charge.id,
      content: { ...content, period: attempt.period },
      now,
    },
    ...(next.status === "cancelled"
      ? [
          {
            merchantId: next.merchantId,
            type: EventType.SUBSCRIPTION_CANCELLED,
            content: subscriptionEventContent(next, merchantName, now),
            now,
          },
        ]
      : []),
  ]);
  await enqueueJob(trx, {
    kind: "subscription-failure-mail",
    refId: failureMailRef(charge.merchantId, charge.id),
    runAt: now,
    now,
  });
  return next;
}

/** The re-debit: a new charge of the failed one's amount, attempt n + 1 of the period, debited on its date. */
async function scheduleRedebit(
  ctx: FlowContext,
  trx: Tx,
  subscription: SubscriptionRecord,
  failed: ChargeRecord,
  period: string,
  decision: Extract<FailureDecision, { kind: "retry" }>,
  now: Date,
): Promise<{ chargeId: string; debitDate: string }> {
  const charge = newOffSessionCharge(
    {
      id: newId("trx"),
      merchantId: failed.merchantId,
      customerId: subscription.customerId,
      contractId: subscription.contractId,
      bankAccountId: failed.bankAccountId,
      requestId: null,
      apiSource: failed.apiSource as never,
      amount: failed.amount,
      discount: failed.discount,
      description: failed.description,
      metadata: { ...failed.metadata, subscription_attempt: String(decision.attempt) },
    },
    now,
  );
  await insertCharges(trx, [charge]);
  await insertAttempt(trx, {
    subscriptionId: subscription.id,
    period,
    attempt: decision.attempt,
    chargeId: charge.id,
    debitDate: decision.debitDate,
    createdAt: now,
  });
  const debitAt = billingRulesOf(ctx.config).chargeMomentOf(decision.debitDate);
  await scheduleDebits(ctx, trx, [charge], decision.debitDate, debitAt, now);
  return { chargeId: charge.id, debitDate: decision.debitDate };
}
