import { newId } from "../domain/ids.js";
import { decodePageToken, encodePageToken, pageSize } from "../domain/page-token.js";
import type { PlanRecord } from "../domain/plan.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { subscriptionReasons } from "../domain/subscription.js";
import { findPlan, insertPlan, insertPlanPrice, listPlans, lockPlans, touchPlan } from "../storage/plans.js";
import { chargedPeriodFrom } from "../storage/subscriptions.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { bindIdempotentResource, type IdempotencyScope } from "./idempotency.js";

/** A plan as CreatePlan takes it: everything but its ids, times and prices. */
export type PlanInput = Omit<PlanRecord, "id" | "merchantId" | "prices" | "createdAt" | "updatedAt"> & {
  amount: number;
};

/** CreatePlan: the plan and its first price (version 1, every period). */
export async function createPlan(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  input: PlanInput,
  idempotency?: IdempotencyScope,
): Promise<PlanRecord> {
  const resumed =
    idempotency?.resumeResourceId && (await findPlan(ctx.tx.db, merchant.id, idempotency.resumeResourceId));
  if (resumed) return resumed;
  const now = ctx.clock.now();
  const { amount, ...rules } = input;
  const plan: PlanRecord = {
    ...rules,
    id: newId("pln"),
    merchantId: merchant.id,
    prices: [{ version: 1, amount, fromPeriod: null, createdAt: now }],
    createdAt: now,
    updatedAt: now,
  };
  await ctx.tx.write(async (trx) => {
    await insertPlan(trx, plan);
    await ctx.audit?.(trx, { action: "plan.create", target: plan.id, details: { name: plan.name, price: amount } });
    await bindIdempotentResource(trx, idempotency, plan.id);
  });
  return plan;
}

export async function getPlan(ctx: FlowContext, merchant: MerchantPrincipal, id: string): Promise<PlanRecord> {
  return requirePlan(ctx.tx.db, merchant.id, id);
}

export async function listMerchantPlans(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  query: { pageSize: number; pageToken: string },
): Promise<{ plans: PlanRecord[]; nextPageToken: string }> {
  const size = pageSize(query.pageSize);
  const plans = await listPlans(ctx.tx.db, merchant.id, size + 1, decodePageToken(query.pageToken));
  const page = plans.slice(0, size);
  const last = page[page.length - 1];
  return {
    plans: page,
    nextPageToken: plans.length > size ? encodePageToken({ createdAt: last.createdAt.toISOString(), id: last.id }) : "",
  };
}

/**
 * UpdatePlanPrice: a new price version from `fromPeriod` on. Refused when a period of the plan
 * from that month on already has its charge (its amount is fixed, and under Zengin its file may
 * be written): the plan is locked, so the cycle charges a period either before the change (and
 * the change is refused) or after it (at the new price) (docs/guide/recurring-billing.md#price-changes).
 */
export async function updatePlanPrice(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  input: { planId: string; amount: number; fromPeriod: string },
  idempotency?: IdempotencyScope,
): Promise<PlanRecord> {
  await requirePlan(ctx.tx.db, merchant.id, input.planId);
  const now = ctx.clock.now();
  await ctx.tx.write(async (trx) => {
    const plan = (await lockPlans(ctx.tx, trx, [input.planId])).get(input.planId)!;
    if (idempotency?.resumeResourceId) return;
    const charged = await chargedPeriodFrom(trx, plan.id, input.fromPeriod);
    if (charged)
      throw new RequestRefusal(
        "precondition",
        `from_period: period ${charged} of plan ${plan.id} is already charged; a new price may start from a later period`,
        { reason: subscriptionReasons.periodAlreadyCharged, facts: { chargedPeriod: charged } },
      );
    const version = plan.prices[plan.prices.length - 1].version + 1;
    await insertPlanPrice(trx, plan.id, {
      version,
      amount: input.amount,
      fromPeriod: input.fromPeriod,
      createdAt: now,
    });
    await touchPlan(trx, plan.id, now);
    await ctx.audit?.(trx, {
      action: "plan.price_update",
      target: plan.id,
      details: { version, price: input.amount, from_period: input.fromPeriod },
    });
    await bindIdempotentResource(trx, idempotency, plan.id);
  });
  return requirePlan(ctx.tx.db, merchant.id, input.planId);
}

export async function requirePlan(db: Tx, merchantId: string, id: string): Promise<PlanRecord> {
  const plan = await findPlan(db, merchantId, id);
  if (!plan)
    throw new RequestRefusal("not_found", `plan ${id} not found`, { reason: subscriptionReasons.planNotFound });
  return plan;
}
