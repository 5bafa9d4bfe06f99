import { ChargeStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import type { SettlementDecision } from "../domain/charge-settlement.js";
import { afterFailedAttempt, afterPaidAttempt, decideAfterFailure, type FailureDecision } from "../domain/dunning.js";
import { newId } from "../domain/ids.js";
import { newOffSessionCharge } from "../domain/off-session-charge.js";
import type { ChargeRecord } from "../domain/records.js";
import type { PlanRecord } from "../domain/plan.js";
import {
  type CarriedDebt,
  carriedAmountOf,
  type SubscriptionAttemptRecord,
  type SubscriptionPeriodRecord,
  type SubscriptionRecord,
} from "../domain/subscription.js";
import { subscriptionEventContent } from "../domain/webhook-content.js";
import { insertCharges } from "../storage/charges.js";
import { type NewEvent, recordEvents } from "../storage/events.js";
import { enqueueJobs } from "../storage/jobs.js";
import { findMerchant } from "../storage/merchants.js";
import { lockPlans } from "../storage/plans.js";
import { findAttemptsOfCharges, insertAttempts } from "../storage/subscription-attempts.js";
import { findPeriods, lockSubscriptions, periodKey, saveSubscription } from "../storage/subscriptions.js";
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
  const failed = followed.filter(({ charge }) => charge.status !== ChargeStatus.SUCCESS);
  const known = await dunningContextOf(ctx, trx, failed, attempts, subscriptions);
  const writes: DunningWrites = { saved: new Map(), redebits: [], events: [], mailRefs: [] };
  for (const { charge } of followed) {
    const attempt = attempts.get(charge.id);
    const subscription = attempt && subscriptions.get(attempt.subscriptionId);
    if (!attempt || !subscription) continue;
    // Later charges of the same subscription in this batch see what this one made of it.
    const next =
      charge.status === ChargeStatus.SUCCESS
        ? afterPaidAttempt(subscription, attempt.period, now)
        : followFailure(ctx, known, writes, subscription, charge, attempt, now);
    if (next !== subscription) writes.saved.set(next.id, next);
    subscriptions.set(next.id, next);
  }
  await applyWrites(ctx, trx, writes, now);
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

/** What the failures' decisions read: their plans (locked), periods and merchants' names. */
interface DunningContext {
  readonly plans: ReadonlyMap<string, PlanRecord>;
  readonly periods: ReadonlyMap<string, SubscriptionPeriodRecord>;
  readonly merchantNames: ReadonlyMap<string, string>;
}

/** What the batch's decisions write, once they are all made. */
interface DunningWrites {
  readonly saved: Map<string, SubscriptionRecord>;
  readonly redebits: { charge: ChargeRecord; attempt: Omit<SubscriptionAttemptRecord, "chargeStatus"> }[];
  readonly events: NewEvent[];
  readonly mailRefs: string[];
}

async function dunningContextOf(
  ctx: FlowContext,
  trx: Tx,
  failed: readonly SettlementDecision[],
  attempts: ReadonlyMap<string, { subscriptionId: string; period: string }>,
  subscriptions: ReadonlyMap<string, SubscriptionRecord>,
): Promise<DunningContext> {
  const keys = failed.flatMap(({ charge }) => {
    const attempt = attempts.get(charge.id);
    return attempt ? [{ subscriptionId: attempt.subscriptionId, period: attempt.period }] : [];
  });
  const ofFailures = keys.flatMap((key) => subscriptions.get(key.subscriptionId) ?? []);
  const merchantNames = new Map<string, string>();
  for (const merchantId of new Set(ofFailures.map((subscription) => subscription.merchantId)))
    merchantNames.set(merchantId, (await findMerchant(trx, merchantId))?.name ?? "");
  return {
    plans: await lockPlans(ctx.tx, trx, [...new Set(ofFailures.map((subscription) => subscription.planId))]),
    periods: await findPeriods(trx, keys),
    merchantNames,
  };
}

function followFailure(
  ctx: FlowContext,
  known: DunningContext,
  writes: DunningWrites,
  subscription: SubscriptionRecord,
  charge: ChargeRecord,
  attempt: { period: string; attempt: number; debitDate: string },
  now: Date,
): SubscriptionRecord {
  if (subscription.status === "cancelled" || subscription.status === "ended") return subscription;
  const plan = known.plans.get(subscription.planId);
  const period = known.periods.get(periodKey(subscription.id, attempt.period));
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
  const retry = decision?.kind === "retry" ? redebitOf(next, charge, attempt.period, decision, now) : undefined;
  if (retry) writes.redebits.push(retry);
  const merchantName = known.merchantNames.get(subscription.merchantId) ?? "";
  const dunning = {
    attempt: attempt.attempt,
    retryDebitDate: retry?.attempt.debitDate,
    retryChargeId: retry?.charge.id,
    carriedAmount: carriedAmountOf(next.carry),
  };
  const content = subscriptionEventContent(next, merchantName, now, undefined, dunning);
  writes.events.push({
    merchantId: next.merchantId,
    type: EventType.SUBSCRIPTION_PAST_DUE,
    chargeId: charge.id,
    content: { ...content, period: attempt.period },
    now,
  });
  if (next.status === "cancelled")
    writes.events.push({
      merchantId: next.merchantId,
      type: EventType.SUBSCRIPTION_CANCELLED,
      content: subscriptionEventContent(next, merchantName, now),
      now,
    });
  writes.mailRefs.push(failureMailRef(charge.merchantId, charge.id));
  return next;
}

/** The re-debit: a new charge of the failed one's amount, attempt n + 1 of the period, debited on its date. */
function redebitOf(
  subscription: SubscriptionRecord,
  failed: ChargeRecord,
  period: string,
  decision: Extract<FailureDecision, { kind: "retry" }>,
  now: Date,
): DunningWrites["redebits"][number] {
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
  const attempt = {
    subscriptionId: subscription.id,
    period,
    attempt: decision.attempt,
    chargeId: charge.id,
    debitDate: decision.debitDate,
    createdAt: now,
  };
  return { charge, attempt };
}

/** The batch's writes, each kind together; re-debits scheduled per debit date. */
async function applyWrites(ctx: FlowContext, trx: Tx, writes: DunningWrites, now: Date): Promise<void> {
  for (const subscription of writes.saved.values()) await saveSubscription(trx, subscription);
  const charges = writes.redebits.map((redebit) => redebit.charge);
  await insertCharges(trx, charges);
  await insertAttempts(
    trx,
    writes.redebits.map((redebit) => redebit.attempt),
  );
  const rules = billingRulesOf(ctx.config);
  for (const debitDate of new Set(writes.redebits.map((redebit) => redebit.attempt.debitDate))) {
    const ofDate = charges.filter((_, index) => writes.redebits[index].attempt.debitDate === debitDate);
    await scheduleDebits(ctx, trx, ofDate, debitDate, rules.chargeMomentOf(debitDate), now);
  }
  await recordEvents(trx, writes.events);
  await enqueueJobs(
    trx,
    writes.mailRefs.map((refId) => ({ kind: "subscription-failure-mail" as const, refId, runAt: now, now })),
  );
}
