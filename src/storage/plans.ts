import type { Selectable } from "kysely";
import type { Cursor } from "../domain/page-token.js";
import type { PlanDiscount, PlanDunning, PlanPrice, PlanRecord } from "../domain/plan.js";
import { olderThanCursor } from "./keyset-cursor.js";
import type { PlanPriceTable, PlanTable } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";

/** Stores a new plan with its first price. */
export async function insertPlan(trx: Tx, plan: PlanRecord): Promise<void> {
  await trx.insertInto("plans").values(planToRow(plan)).execute();
  await insertPlanPrice(trx, plan.id, plan.prices[0]);
}

export async function insertPlanPrice(trx: Tx, planId: string, price: PlanPrice): Promise<void> {
  await trx
    .insertInto("plan_prices")
    .values({
      plan_id: planId,
      version: price.version,
      amount: price.amount,
      from_period: price.fromPeriod,
      created_at: price.createdAt.toISOString(),
    })
    .execute();
}

export async function touchPlan(trx: Tx, planId: string, now: Date): Promise<void> {
  await trx.updateTable("plans").set({ updated_at: now.toISOString() }).where("id", "=", planId).execute();
}

/** The merchant's plan, with its prices. */
export async function findPlan(db: Tx, merchantId: string, id: string): Promise<PlanRecord | undefined> {
  const row = await db
    .selectFrom("plans")
    .selectAll()
    .where("id", "=", id)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return row && (await withPrices(db, [row]))[0];
}

/** The merchant's plans of these ids, with their prices, by id. */
export async function plansByIds(db: Tx, merchantId: string, ids: readonly string[]): Promise<Map<string, PlanRecord>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("plans")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("id", "in", [...new Set(ids)])
    .execute();
  return new Map((await withPrices(db, rows)).map((plan) => [plan.id, plan]));
}

/**
 * Locks plans for the rest of the transaction (PostgreSQL; SQLite's writers are serialised): a
 * price change and the cycle charging the plan's periods never interleave.
 */
export async function lockPlans(tx: Transactor, trx: Tx, ids: readonly string[]): Promise<Map<string, PlanRecord>> {
  if (ids.length === 0) return new Map();
  const rows = await tx
    .lockRows(
      trx
        .selectFrom("plans")
        .selectAll()
        .where("id", "in", [...ids])
        .orderBy("id"),
    )
    .execute();
  return new Map((await withPrices(trx, rows)).map((plan) => [plan.id, plan]));
}

/** A page of the merchant's plans, newest first. */
export async function listPlans(db: Tx, merchantId: string, limit: number, after?: Cursor): Promise<PlanRecord[]> {
  let query = db.selectFrom("plans").selectAll().where("merchant_id", "=", merchantId);
  if (after)
    query = query.where((eb) =>
      olderThanCursor(eb, { time: "created_at", tie: "id" }, { time: after.createdAt, tie: after.id }),
    );
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
  return withPrices(db, rows);
}

async function withPrices(db: Tx, rows: Selectable<PlanTable>[]): Promise<PlanRecord[]> {
  if (rows.length === 0) return [];
  const prices = await db
    .selectFrom("plan_prices")
    .selectAll()
    .where(
      "plan_id",
      "in",
      rows.map((row) => row.id),
    )
    .orderBy("plan_id")
    .orderBy("version")
    .execute();
  const byPlan = new Map<string, PlanPrice[]>();
  for (const price of prices) byPlan.set(price.plan_id, [...(byPlan.get(price.plan_id) ?? []), priceFromRow(price)]);
  return rows.map((row) => planFromRow(row, byPlan.get(row.id) ?? []));
}

function priceFromRow(row: PlanPriceTable): PlanPrice {
  return { version: row.version, amount: row.amount, fromPeriod: row.from_period, createdAt: new Date(row.created_at) };
}

function planFromRow(row: Selectable<PlanTable>, prices: PlanPrice[]): PlanRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    name: row.name,
    intervalUnit: row.interval_unit as PlanRecord["intervalUnit"],
    intervalCount: row.interval_count,
    debitDay: row.debit_day === 0 ? "last" : row.debit_day,
    firstPeriod: row.first_period as PlanRecord["firstPeriod"],
    discount: discountFromRow(row),
    dunning: {
      action: row.dunning_action as PlanDunning["action"],
      retryAfterDays: row.dunning_retry_after_days,
      maxAttempts: row.dunning_max_attempts,
      cancelOnGiveUp: row.dunning_cancel_on_give_up === 1,
    },
    noticeDays: row.notice_days,
    prices,
    metadata: JSON.parse(row.metadata_json),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function discountFromRow(row: Selectable<PlanTable>): PlanDiscount | null {
  if (row.discount_kind === "amount")
    return { kind: "amount", amount: row.discount_value, periods: row.discount_periods };
  if (row.discount_kind === "percent")
    return { kind: "percent", percent: row.discount_value, periods: row.discount_periods };
  return null;
}

function planToRow(plan: PlanRecord): PlanTable {
  const discount = plan.discount;
  return {
    id: plan.id,
    merchant_id: plan.merchantId,
    name: plan.name,
    interval_unit: plan.intervalUnit,
    interval_count: plan.intervalCount,
    debit_day: plan.debitDay === "last" ? 0 : plan.debitDay,
    first_period: plan.firstPeriod,
    discount_kind: discount?.kind ?? "",
    discount_value: !discount ? 0 : discount.kind === "amount" ? discount.amount : discount.percent,
    discount_periods: discount?.periods ?? 0,
    dunning_action: plan.dunning.action,
    dunning_retry_after_days: plan.dunning.retryAfterDays,
    dunning_max_attempts: plan.dunning.maxAttempts,
    dunning_cancel_on_give_up: plan.dunning.cancelOnGiveUp ? 1 : 0,
    notice_days: plan.noticeDays,
    metadata_json: JSON.stringify(plan.metadata),
    created_at: plan.createdAt.toISOString(),
    updated_at: plan.updatedAt.toISOString(),
  };
}
