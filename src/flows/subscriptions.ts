import { chargingRefusals } from "../domain/onboarding.js";
import { refuseBlockedMerchant } from "./charging-allowed.js";
import { EventType } from "../../gen/payments/v1/enums_pb.js";
import { attemptsOfPeriod } from "../storage/subscription-attempts.js";
import { newId } from "../domain/ids.js";
import { decodePageToken, encodePageToken, pageSize } from "../domain/page-token.js";
import type { Metadata } from "../domain/records.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import {
  cancelSubscription,
  firstScheduleOf,
  pauseSubscription,
  resumeSubscription,
  type SubscriptionAttemptRecord,
  type SubscriptionPeriodRecord,
  type SubscriptionRecord,
  type SubscriptionStatus,
  subscriptionReasons,
} from "../domain/subscription.js";
import { subscriptionEventContent } from "../domain/webhook-content.js";
import { findActivatedContracts } from "../storage/contracts.js";
import { recordEvent, recordEvents } from "../storage/events.js";
import {
  findSubscription,
  insertSubscriptions,
  listSubscriptions,
  lockSubscription,
  periodsOf,
  saveSubscription,
} from "../storage/subscriptions.js";
import { findCustomer } from "../storage/status-queries.js";
import type { JstDate } from "../domain/jst.js";
import type { PlanRecord } from "../domain/plan.js";
import type { Tx } from "../storage/transactor.js";
import { billingRulesOf } from "./bank-rules.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { bindIdempotentResource, type IdempotencyScope } from "./idempotency.js";
import { requirePlan } from "./plans.js";
import { limits } from "../domain/limits.js";

export interface SubscriptionInput {
  customerId: string;
  planId: string;
  /** 0: the plan's price. */
  amount: number;
  startPeriod: string;
  /** "": until cancelled. */
  endPeriod: string;
  description: string;
  metadata: Metadata;
}

/**
 * CreateSubscription: the customer's ACTIVATED contract carries it; its first charged period must
 * not be due yet. EVENT_TYPE_SUBSCRIPTION_CREATED in the same transaction.
 */
export async function createSubscription(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  input: SubscriptionInput,
  idempotency?: IdempotencyScope,
): Promise<SubscriptionRecord> {
  const resumed =
    idempotency?.resumeResourceId && (await findSubscription(ctx.tx.db, merchant.id, idempotency.resumeResourceId));
  if (resumed) return resumed;
  // A subscription promises a charge every period: refused where a charge would be.
  await refuseBlockedMerchant(ctx, merchant.id, chargingRefusals.precondition);
  const now = ctx.clock.now();
  const plan = await requirePlan(ctx.tx.db, merchant.id, input.planId);
  const first = firstScheduleOf(input.startPeriod, plan, billingRulesOf(ctx.config), now);
  const subscription = await ctx.tx.write(async (trx) => {
    const customer = await findCustomer(trx, merchant.id, input.customerId);
    const [contract] = customer ? await findActivatedContracts(trx, customer.id) : [];
    if (!customer || !contract)
      throw new RequestRefusal(
        "precondition",
        customer
          ? `customer ${input.customerId} has no active contract: send a payment link first`
          : `customer ${input.customerId} not found`,
        { reason: subscriptionReasons.contractNotActive },
      );
    const created = newSubscription(
      merchant.id,
      { customerId: customer.id, contractId: contract.id },
      plan,
      input,
      first,
      now,
    );
    await saveNewSubscriptions(trx, [created], merchant.name, now);
    await ctx.audit?.(trx, {
      action: "subscription.create",
      target: created.id,
      details: { customer_id: created.customerId, plan_id: created.planId, start_period: created.startPeriod },
    });
    await bindIdempotentResource(trx, idempotency, created.id);
    return created;
  });
  ctx.wake("events");
  return subscription;
}

/** A new ACTIVE subscription of the customer's contract, its first charged period scheduled. */
export function newSubscription(
  merchantId: string,
  holder: { customerId: string; contractId: string },
  plan: PlanRecord,
  input: SubscriptionInput,
  first: { period: string; debitDate: JstDate },
  now: Date,
): SubscriptionRecord {
  return {
    id: newId("sub"),
    merchantId,
    customerId: holder.customerId,
    contractId: holder.contractId,
    planId: plan.id,
    amount: input.amount > 0 ? input.amount : null,
    startPeriod: input.startPeriod,
    endPeriod: input.endPeriod || null,
    status: "active",
    cancelAtPeriodEnd: false,
    endReason: null,
    nextPeriod: first.period,
    nextDebitDate: first.debitDate,
    lastPeriod: null,
    description: input.description || plan.name,
    metadata: input.metadata,
    createdAt: now,
    updatedAt: now,
    endedAt: null,
    pastDueReason: null,
    pastDuePeriod: null,
    carry: [],
  };
}

/** Stores new subscriptions with their EVENT_TYPE_SUBSCRIPTION_CREATED, in the caller's transaction. */
export async function saveNewSubscriptions(
  trx: Tx,
  subscriptions: readonly SubscriptionRecord[],
  merchantName: string,
  now: Date,
): Promise<void> {
  await insertSubscriptions(trx, subscriptions);
  await recordEvents(
    trx,
    subscriptions.map((subscription) => ({
      merchantId: subscription.merchantId,
      type: EventType.SUBSCRIPTION_CREATED,
      content: subscriptionEventContent(subscription, merchantName, now),
      now,
    })),
  );
}

/** GetSubscription: the subscription, its latest periods and its unpaid period's attempts. */
export async function getSubscription(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  id: string,
): Promise<{
  subscription: SubscriptionRecord;
  periods: SubscriptionPeriodRecord[];
  attempts: SubscriptionAttemptRecord[];
}> {
  const subscription = await findSubscription(ctx.tx.db, merchant.id, id);
  if (!subscription) throw notFound(id);
  const attempts = subscription.pastDuePeriod ? await attemptsOfPeriod(ctx.tx.db, id, subscription.pastDuePeriod) : [];
  return { subscription, periods: await periodsOf(ctx.tx.db, id, limits.subscriptionPeriodsShown), attempts };
}

export async function listMerchantSubscriptions(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  query: { customerId: string; planId: string; status?: SubscriptionStatus; pageSize: number; pageToken: string },
): Promise<{ subscriptions: SubscriptionRecord[]; nextPageToken: string }> {
  const size = pageSize(query.pageSize);
  const found = await listSubscriptions(ctx.tx.db, merchant.id, query, size + 1, decodePageToken(query.pageToken));
  const page = found.slice(0, size);
  const last = page[page.length - 1];
  return {
    subscriptions: page,
    nextPageToken: found.length > size ? encodePageToken({ createdAt: last.createdAt.toISOString(), id: last.id }) : "",
  };
}

export function pause(ctx: FlowContext, merchant: MerchantPrincipal, id: string): Promise<SubscriptionRecord> {
  return change(ctx, merchant, id, "subscription.pause", async (subscription, now) =>
    pauseSubscription(subscription, now),
  );
}

export function resume(ctx: FlowContext, merchant: MerchantPrincipal, id: string): Promise<SubscriptionRecord> {
  return change(ctx, merchant, id, "subscription.resume", async (subscription, now, trx) => {
    const plan = await requirePlan(trx, merchant.id, subscription.planId);
    return resumeSubscription(subscription, plan, billingRulesOf(ctx.config), now);
  });
}

/** CancelSubscription: now (EVENT_TYPE_SUBSCRIPTION_CANCELLED at once), or at period end (the event when it ends). */
export async function cancel(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  id: string,
  atPeriodEnd: boolean,
): Promise<SubscriptionRecord> {
  const cancelled = await change(ctx, merchant, id, "subscription.cancel", async (subscription, now, trx) => {
    const next = cancelSubscription(subscription, atPeriodEnd, now);
    if (next.status === "cancelled" && subscription.status !== "cancelled")
      await recordSubscriptionEvent(trx, EventType.SUBSCRIPTION_CANCELLED, next, merchant.name, now);
    return next;
  });
  ctx.wake("events");
  return cancelled;
}

/** One transaction: lock, let the domain decide, save what changed (audited from the dashboard). */
async function change(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  id: string,
  action: "subscription.pause" | "subscription.resume" | "subscription.cancel",
  decide: (subscription: SubscriptionRecord, now: Date, trx: Tx) => Promise<SubscriptionRecord>,
): Promise<SubscriptionRecord> {
  const now = ctx.clock.now();
  return ctx.tx.write(async (trx) => {
    const subscription = await lockSubscription(ctx.tx, trx, merchant.id, id);
    if (!subscription) throw notFound(id);
    const changed = await decide(subscription, now, trx);
    if (changed === subscription) return changed;
    await saveSubscription(trx, changed);
    await ctx.audit?.(trx, {
      action,
      target: id,
      details: { status: changed.status, cancel_at_period_end: changed.cancelAtPeriodEnd },
    });
    return changed;
  });
}

export async function recordSubscriptionEvent(
  trx: Tx,
  type: EventType,
  subscription: SubscriptionRecord,
  merchantName: string,
  now: Date,
  period?: SubscriptionPeriodRecord,
): Promise<void> {
  await recordEvent(trx, {
    merchantId: subscription.merchantId,
    type,
    chargeId: period?.chargeId ?? undefined,
    content: subscriptionEventContent(subscription, merchantName, now, period),
    now,
  });
}

function notFound(id: string): RequestRefusal {
  return new RequestRefusal("not_found", `subscription ${id} not found`, {
    reason: subscriptionReasons.subscriptionNotFound,
  });
}
