import type { Selectable } from "kysely";
import type { PastDueReason } from "../domain/subscription.js";
import type { JstDate } from "../domain/jst.js";
import type { Cursor } from "../domain/page-token.js";
import type {
  SubscriptionEndReason,
  SubscriptionPeriodRecord,
  SubscriptionRecord,
  SubscriptionStatus,
} from "../domain/subscription.js";
import { insertRows } from "./bulk-insert.js";
import { inSortedIdChunks, updateGrouped } from "./charges.js";
import { insertAttempts } from "./subscription-attempts.js";
import { olderThanCursor } from "./keyset-cursor.js";
import type { SubscriptionPeriodTable, SubscriptionTable } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";
import { limits } from "../domain/limits.js";

/** Many at once (a subscription import), in chunks that keep under SQLite's bound parameters. */
export async function insertSubscriptions(trx: Tx, subscriptions: readonly SubscriptionRecord[]): Promise<void> {
  for (let start = 0; start < subscriptions.length; start += 200)
    await trx
      .insertInto("subscriptions")
      .values(subscriptions.slice(start, start + 200).map(subscriptionToRow))
      .execute();
}

/** Saves what a transition changed (status, schedule, end). */
export async function saveSubscription(trx: Tx, subscription: SubscriptionRecord): Promise<void> {
  const { id, merchant_id, customer_id, plan_id, created_at, ...changes } = subscriptionToRow(subscription);
  await trx.updateTable("subscriptions").set(changes).where("id", "=", id).execute();
}

export async function findSubscription(
  db: Tx,
  merchantId: string,
  id: string,
): Promise<SubscriptionRecord | undefined> {
  const row = await db
    .selectFrom("subscriptions")
    .selectAll()
    .where("id", "=", id)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return row && subscriptionFromRow(row);
}

export async function lockSubscription(
  tx: Transactor,
  trx: Tx,
  merchantId: string,
  id: string,
): Promise<SubscriptionRecord | undefined> {
  const row = await tx
    .lockRows(trx.selectFrom("subscriptions").selectAll().where("id", "=", id).where("merchant_id", "=", merchantId))
    .executeTakeFirst();
  return row && subscriptionFromRow(row);
}

/** `lockSubscription` for many: the merchant's subscriptions with these ids, by id. */
export async function lockSubscriptions(
  tx: Transactor,
  trx: Tx,
  merchantId: string,
  ids: readonly string[],
): Promise<Map<string, SubscriptionRecord>> {
  // In id order, across chunks too: concurrent transactions lock them in the same order on
  // PostgreSQL. By id alone, the merchant checked on the rows found
  // (docs/operations/benchmark.md#history-independence).
  const rows = await inSortedIdChunks(ids, (chunk) =>
    tx.lockRows(trx.selectFrom("subscriptions").selectAll().where("id", "in", chunk).orderBy("id")).execute(),
  );
  return new Map(rows.filter((row) => row.merchant_id === merchantId).map((row) => [row.id, subscriptionFromRow(row)]));
}

/** A page of the merchant's subscriptions, newest first, of one customer, plan or state when asked. */
export async function listSubscriptions(
  db: Tx,
  merchantId: string,
  filter: { customerId: string; planId: string; status?: SubscriptionStatus },
  limit: number,
  after?: Cursor,
): Promise<SubscriptionRecord[]> {
  let query = db.selectFrom("subscriptions").selectAll().where("merchant_id", "=", merchantId);
  if (filter.customerId) query = query.where("customer_id", "=", filter.customerId);
  if (filter.planId) query = query.where("plan_id", "=", filter.planId);
  if (filter.status) query = query.where("status", "=", filter.status);
  if (after)
    query = query.where((eb) =>
      olderThanCursor(eb, { time: "created_at", tie: "id" }, { time: after.createdAt, tie: after.id }),
    );
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
  return rows.map(subscriptionFromRow);
}

/** The statuses whose periods are charged: a past-due subscription goes on being charged (domain/dunning.ts). */
const chargedStatuses: SubscriptionStatus[] = ["active", "past_due"];

/** The debit dates up to `horizon` that active subscriptions wait for, earliest first. */
export async function dueDebitDates(db: Tx, horizon: JstDate): Promise<JstDate[]> {
  const rows = await db
    .selectFrom("subscriptions")
    .select("next_debit_date")
    .distinct()
    .where("status", "in", chargedStatuses)
    .where("next_debit_date", "<=", horizon)
    .orderBy("next_debit_date")
    .execute();
  return rows.flatMap((row) => (row.next_debit_date ? [row.next_debit_date] : []));
}

/**
 * Locks the next page of active subscriptions due on `debitDate`, by id. A second instance waits
 * on the lock and then no longer finds them due (PostgreSQL re-reads a locked row it waited for).
 */
export async function lockDueSubscriptions(tx: Transactor, trx: Tx, debitDate: JstDate): Promise<SubscriptionRecord[]> {
  const rows = await tx
    .lockRows(
      trx
        .selectFrom("subscriptions")
        .selectAll()
        .where("status", "in", chargedStatuses)
        .where("next_debit_date", "=", debitDate)
        .orderBy("id")
        .limit(limits.subscriptionCyclePageRows),
    )
    .execute();
  return rows.map(subscriptionFromRow);
}

/** The cycle's schedule changes for many subscriptions: one UPDATE per distinct change and chunk of ids. */
export async function saveSubscriptionSchedules(trx: Tx, subscriptions: readonly SubscriptionRecord[]): Promise<void> {
  await updateGrouped(
    subscriptions.map((subscription) => ({ id: subscription.id, set: scheduleColumnsOf(subscription) })),
    (set, ids) => trx.updateTable("subscriptions").set(set).where("id", "in", ids).execute(),
  );
}

/**
 * Records periods once each (insert-or-ignore on the primary key, subscription and period): the
 * keys of those this call inserted. A period another transaction recorded is not returned, so
 * it is never charged twice.
 */
export async function insertPeriods(
  trx: Tx,
  periods: readonly SubscriptionPeriodRecord[],
  planIds: ReadonlyMap<string, string>,
): Promise<Set<string>> {
  const rows = await insertRows(
    trx,
    "subscription_periods",
    periods.map((period) => periodToRow(period, planIds.get(period.subscriptionId) ?? "")),
    { ignoreConflictOn: ["subscription_id", "period"], returning: ["subscription_id", "period"] },
  );
  return new Set(rows.map((row) => periodKey(String(row.subscription_id), String(row.period))));
}

/** The charges of periods' first attempts. */
export async function insertFirstAttempts(trx: Tx, periods: readonly SubscriptionPeriodRecord[]): Promise<void> {
  await insertAttempts(
    trx,
    periods.flatMap((period) =>
      period.chargeId
        ? [
            {
              subscriptionId: period.subscriptionId,
              period: period.period,
              attempt: 1,
              chargeId: period.chargeId,
              debitDate: period.debitDate,
              createdAt: period.createdAt,
            },
          ]
        : [],
    ),
  );
}

export function periodKey(subscriptionId: string, period: string): string {
  return `${subscriptionId}/${period}`;
}

/** A subscription's latest periods, newest first. */
export async function periodsOf(db: Tx, subscriptionId: string, limit: number): Promise<SubscriptionPeriodRecord[]> {
  const rows = await db
    .selectFrom("subscription_periods")
    .selectAll()
    .where("subscription_id", "=", subscriptionId)
    .orderBy("period", "desc")
    .limit(limit)
    .execute();
  return rows.map(periodFromRow);
}

/** Periods by their keys (`periodKey`): a result file's failed charges, read together. */
export async function findPeriods(
  db: Tx,
  keys: readonly { subscriptionId: string; period: string }[],
): Promise<Map<string, SubscriptionPeriodRecord>> {
  const periods = [...new Set(keys.map((key) => key.period))];
  const wanted = new Set(keys.map((key) => periodKey(key.subscriptionId, key.period)));
  // By subscription (the primary key's first column), the periods asked for kept.
  const rows = await inSortedIdChunks(
    keys.map((key) => key.subscriptionId),
    (chunk) =>
      db
        .selectFrom("subscription_periods")
        .selectAll()
        .where("subscription_id", "in", chunk)
        .where("period", "in", periods)
        .execute(),
  );
  return new Map(
    rows
      .filter((row) => wanted.has(periodKey(row.subscription_id, row.period)))
      .map((row) => [periodKey(row.subscription_id, row.period), periodFromRow(row)]),
  );
}

/** The latest period of the plan already recorded from `fromPeriod` on, if any (a price change may not reach it). */
export async function chargedPeriodFrom(db: Tx, planId: string, fromPeriod: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("subscription_periods")
    .select("period")
    .where("plan_id", "=", planId)
    .where("period", ">=", fromPeriod)
    .orderBy("period", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.period;
}

/** The subscriptions under a contract that are not final, locked. */
export async function lockLiveSubscriptionsOfContract(
  tx: Transactor,
  trx: Tx,
  contractId: string,
): Promise<SubscriptionRecord[]> {
  const rows = await tx
    .lockRows(
      trx
        .selectFrom("subscriptions")
        .selectAll()
        .where("contract_id", "=", contractId)
        .where("status", "in", liveStatuses)
        .orderBy("id"),
    )
    .execute();
  return rows.map(subscriptionFromRow);
}

const liveStatuses: SubscriptionStatus[] = ["active", "paused", "past_due"];

/** A customer's newer contract replaced the older (a re-linked account): its subscriptions follow it. */
export async function moveSubscriptions(
  trx: Tx,
  fromContractId: string,
  toContractId: string,
  now: Date,
): Promise<void> {
  await trx
    .updateTable("subscriptions")
    .set({ contract_id: toContractId, updated_at: now.toISOString() })
    .where("contract_id", "=", fromContractId)
    .where("status", "in", liveStatuses)
    .execute();
}

function subscriptionFromRow(row: Selectable<SubscriptionTable>): SubscriptionRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    customerId: row.customer_id,
    contractId: row.contract_id,
    planId: row.plan_id,
    amount: row.amount,
    startPeriod: row.start_period,
    endPeriod: row.end_period,
    status: row.status as SubscriptionStatus,
    cancelAtPeriodEnd: row.cancel_at_period_end === 1,
    endReason: row.end_reason as SubscriptionEndReason | null,
    nextPeriod: row.next_period,
    nextDebitDate: row.next_debit_date,
    lastPeriod: row.last_period,
    description: row.description,
    metadata: JSON.parse(row.metadata_json),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    endedAt: row.ended_at ? new Date(row.ended_at) : null,
    pastDueReason: row.past_due_reason as PastDueReason | null,
    pastDuePeriod: row.past_due_period,
    carry: JSON.parse(row.carry_json),
  };
}

function subscriptionToRow(record: SubscriptionRecord): SubscriptionTable {
  return {
    id: record.id,
    merchant_id: record.merchantId,
    customer_id: record.customerId,
    contract_id: record.contractId,
    plan_id: record.planId,
    amount: record.amount,
    start_period: record.startPeriod,
    end_period: record.endPeriod,
    cancel_at_period_end: record.cancelAtPeriodEnd ? 1 : 0,
    description: record.description,
    metadata_json: JSON.stringify(record.metadata),
    created_at: record.createdAt.toISOString(),
    past_due_reason: record.pastDueReason,
    past_due_period: record.pastDuePeriod,
    ...scheduleColumnsOf(record),
  };
}

/** The columns a cycle moves on (saveSubscriptionSchedules), without serialising the rest of the row. */
function scheduleColumnsOf(record: SubscriptionRecord) {
  return {
    status: record.status,
    end_reason: record.endReason,
    next_period: record.nextPeriod,
    next_debit_date: record.nextDebitDate,
    last_period: record.lastPeriod,
    updated_at: record.updatedAt.toISOString(),
    ended_at: record.endedAt?.toISOString() ?? null,
    carry_json: JSON.stringify(record.carry),
  };
}

function periodFromRow(row: SubscriptionPeriodTable): SubscriptionPeriodRecord {
  return {
    subscriptionId: row.subscription_id,
    merchantId: row.merchant_id,
    period: row.period,
    number: row.number,
    debitDate: row.debit_date,
    priceVersion: row.price_version,
    amounts: { initialAmount: row.initial_amount, discount: row.discount, finalAmount: row.final_amount },
    chargeId: row.charge_id,
    carried: JSON.parse(row.carried_json),
    createdAt: new Date(row.created_at),
  };
}

function periodToRow(period: SubscriptionPeriodRecord, planId: string): SubscriptionPeriodTable {
  return {
    subscription_id: period.subscriptionId,
    period: period.period,
    merchant_id: period.merchantId,
    plan_id: planId,
    number: period.number,
    debit_date: period.debitDate,
    price_version: period.priceVersion,
    initial_amount: period.amounts.initialAmount,
    discount: period.amounts.discount,
    final_amount: period.amounts.finalAmount,
    charge_id: period.chargeId,
    created_at: period.createdAt.toISOString(),
    carried_json: JSON.stringify(period.carried),
  };
}

/**
 * The (customer, plan) pairs of these customers' subscriptions not yet final: a subscription import
 * does not subscribe a customer to a plan twice.
 */
export async function livePlansOfCustomers(
  db: Tx,
  merchantId: string,
  customerIds: readonly string[],
): Promise<Array<{ customerId: string; planId: string }>> {
  if (customerIds.length === 0) return [];
  // By customer alone, the merchant checked on the rows found (docs/operations/benchmark.md#history-independence).
  const rows = await db
    .selectFrom("subscriptions")
    .select(["merchant_id", "customer_id", "plan_id"])
    .where("customer_id", "in", customerIds)
    .where("status", "in", ["active", "paused", "past_due"])
    .execute();
  return rows
    .filter((row) => row.merchant_id === merchantId)
    .map((row) => ({ customerId: row.customer_id, planId: row.plan_id }));
}
