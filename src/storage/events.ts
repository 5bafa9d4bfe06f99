import { insertRows } from "./bulk-insert.js";
import { type Kysely, PostgresAdapter, sql } from "kysely";
import { DeliveryStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import { newId } from "../domain/ids.js";
import type { DeliveryAttemptRecord, DueEventRecord, EventRecord } from "../domain/records.js";
import type { DialectName } from "./database.js";
import type { Database } from "./schema.js";
import { unseal } from "./sealed.js";
import type { Tx } from "./transactor.js";
import { eventFromRow, attemptFromRow } from "./records.js";
import { olderThanCursor } from "./keyset-cursor.js";

/** The webhook outbox as the dispatcher and the event API read and update it. */

type Db = Kysely<Database>;

/**
 * Merchants with a webhook URL and at least one event due, oldest due first: a merchant whose
 * endpoint keeps failing has its events pushed into the future and so yields to the others.
 */
export async function merchantsWithDueEvents(
  db: Db,
  now: string,
): Promise<Array<{ id: string; webhookUrl: string; webhookSecret: string }>> {
  const rows = await db
    .selectFrom("merchants as m")
    .select(["m.id", "m.webhook_url", "m.webhook_secret"])
    .select((eb) =>
      eb
        .selectFrom("events as e")
        .select("e.next_attempt_at")
        .whereRef("e.merchant_id", "=", "m.id")
        .where("e.delivery_status", "=", DeliveryStatus.PENDING)
        .where("e.next_attempt_at", "<=", now)
        .where((w) => w.or([w("e.lease_until", "is", null), w("e.lease_until", "<", now)]))
        .orderBy("e.next_attempt_at")
        .limit(1)
        .as("oldest_due"),
    )
    .where("m.webhook_url", "<>", "")
    .execute();
  return rows
    .filter((row) => row.oldest_due !== null)
    .sort((a, b) => (a.oldest_due! < b.oldest_due! ? -1 : a.oldest_due! > b.oldest_due! ? 1 : 0))
    .map((row) => ({ id: row.id, webhookUrl: row.webhook_url, webhookSecret: unseal(row.webhook_secret) }));
}

/**
 * Up to `limit` due, unleased events of one merchant, skipping any event while an earlier event
 * of the same charge is still pending (per-charge order). On PostgreSQL the rows are locked
 * with SKIP LOCKED, so instances claiming at the same time take different events.
 */
export async function dueEventsOfMerchant(
  db: Db,
  dialect: DialectName,
  merchantId: string,
  now: string,
  limit: number,
): Promise<DueEventRecord[]> {
  let query = db
    .selectFrom("events as e")
    .select([
      "e.id",
      "e.event_type_name",
      "e.content_json",
      "e.created_at",
      "e.attempt_count",
      "e.retry_window_started_at",
    ])
    .where("e.merchant_id", "=", merchantId)
    .where("e.delivery_status", "=", DeliveryStatus.PENDING)
    .where("e.next_attempt_at", "<=", now)
    .where((eb) => eb.or([eb("e.lease_until", "is", null), eb("e.lease_until", "<", now)]))
    .where((eb) =>
      eb.or([
        eb("e.charge_id", "=", ""),
        eb.not(
          eb.exists(
            eb
              .selectFrom("events as earlier")
              .select("earlier.id")
              .whereRef("earlier.merchant_id", "=", "e.merchant_id")
              .whereRef("earlier.charge_id", "=", "e.charge_id")
              .whereRef("earlier.seq", "<", "e.seq")
              .where("earlier.delivery_status", "=", DeliveryStatus.PENDING),
          ),
        ),
      ]),
    )
    // Walks the (merchant_id, delivery_status, next_attempt_at) index and stops at `limit`.
    .orderBy("e.next_attempt_at")
    .limit(limit);
  if (dialect === "postgres") query = query.forUpdate().skipLocked();
  return (await query.execute()).map((row) => ({
    id: row.id,
    eventTypeName: row.event_type_name,
    contentJson: row.content_json,
    createdAt: new Date(row.created_at),
    attemptCount: row.attempt_count,
    retryWindowStartedAt: row.retry_window_started_at ? new Date(row.retry_window_started_at) : null,
  }));
}

/** Takes the lease; the first attempt of a retry cycle also starts its 3-day window. */
export async function leaseEvents(db: Db, ids: string[], leaseUntil: string, now: string): Promise<void> {
  await db
    .updateTable("events")
    .set((eb) => ({
      lease_until: leaseUntil,
      retry_window_started_at: eb.fn.coalesce("retry_window_started_at", eb.val(now)),
    }))
    .where("id", "in", ids)
    .execute();
}

export async function insertDeliveryAttempt(db: Db, attempt: DeliveryAttemptRecord): Promise<void> {
  await db
    .insertInto("delivery_attempts")
    .values({
      event_id: attempt.eventId,
      attempted_at: attempt.attemptedAt.toISOString(),
      http_status: attempt.httpStatus,
      error: attempt.error,
      duration_ms: attempt.durationMs,
    })
    .execute();
}

/**
 * Records the outcome of an attempt, only while the lease taken for it still holds (a redelivery
 * or a takeover after the lease lapsed wins). True when the event was updated.
 */
export async function settleAttempt(
  db: Db,
  id: string,
  leaseUntil: string,
  outcome: { status: DeliveryStatus; nextAttemptAt?: string; deliveredAt?: string },
): Promise<boolean> {
  const result = await db
    .updateTable("events")
    .set((eb) => ({
      delivery_status: outcome.status,
      attempt_count: eb("attempt_count", "+", 1),
      lease_until: null,
      ...(outcome.nextAttemptAt ? { next_attempt_at: outcome.nextAttemptAt } : {}),
      ...(outcome.deliveredAt ? { delivered_at: outcome.deliveredAt } : {}),
    }))
    .where("id", "=", id)
    .where("lease_until", "=", leaseUntil)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Releases a lease without counting an attempt (shutdown cut it short): the event goes out again at once. */
export async function releaseLease(db: Db, id: string, leaseUntil: string): Promise<void> {
  await db
    .updateTable("events")
    .set({ lease_until: null })
    .where("id", "=", id)
    .where("lease_until", "=", leaseUntil)
    .execute();
}

export async function setMerchantFailing(db: Db, merchantId: string, reason: string): Promise<void> {
  await db
    .updateTable("merchants")
    .set({ webhook_failing: 1, webhook_failing_reason: reason })
    .where("id", "=", merchantId)
    .execute();
}

export async function clearMerchantFailing(db: Db, merchantId: string): Promise<void> {
  await db
    .updateTable("merchants")
    .set({ webhook_failing: 0, webhook_failing_reason: "" })
    .where("id", "=", merchantId)
    .where("webhook_failing", "=", 1)
    .execute();
}

/** Queues an event now as a new retry cycle (same id; its attempts are kept). */
export async function requeueEvent(db: Db, merchantId: string, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable("events")
    .set({
      delivery_status: DeliveryStatus.PENDING,
      next_attempt_at: now,
      lease_until: null,
      attempt_count: 0,
      retry_window_started_at: null,
    })
    .where("id", "=", id)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A merchant's pending events start a new retry cycle now (after the webhook URL changed). */
export async function requeuePendingEvents(db: Db, merchantId: string, now: string): Promise<void> {
  await db
    .updateTable("events")
    .set({ next_attempt_at: now, attempt_count: 0, retry_window_started_at: null })
    .where("merchant_id", "=", merchantId)
    .where("delivery_status", "=", DeliveryStatus.PENDING)
    .execute();
}

/** Scoped to the merchant: another merchant's event reads exactly like a missing one. */
export async function findEvent(db: Db, merchantId: string, id: string): Promise<EventRecord | undefined> {
  const row = await db
    .selectFrom("events")
    .selectAll()
    .where("id", "=", id)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return row && eventFromRow(row);
}

export interface EventFilter {
  eventType?: number;
  chargeId?: string;
  createdAfter?: string;
  createdBefore?: string;
  pendingOnly?: boolean;
  deliveryStatus?: number;
}

/** Newest first (recording order breaks ties); the cursor is the (created_at, seq) of the previous page's last row. */
export async function listEvents(
  db: Db,
  merchantId: string,
  options: EventFilter & { limit: number; after?: { createdAt: string; seq: number } },
): Promise<EventRecord[]> {
  let query = db.selectFrom("events").selectAll().where("merchant_id", "=", merchantId);
  if (options.eventType) query = query.where("event_type", "=", options.eventType);
  if (options.chargeId) query = query.where("charge_id", "=", options.chargeId);
  if (options.createdAfter) query = query.where("created_at", ">", options.createdAfter);
  if (options.createdBefore) query = query.where("created_at", "<", options.createdBefore);
  if (options.pendingOnly) query = query.where("delivery_status", "=", DeliveryStatus.PENDING);
  if (options.deliveryStatus) query = query.where("delivery_status", "=", options.deliveryStatus);
  const after = options.after;
  if (after) {
    query = query.where((eb) =>
      olderThanCursor(eb, { time: "created_at", tie: "seq" }, { time: after.createdAt, tie: after.seq }),
    );
  }
  const rows = await query.orderBy("created_at", "desc").orderBy("seq", "desc").limit(options.limit).execute();
  return rows.map(eventFromRow);
}

/** The attempts of each event, oldest first. */
export async function attemptsOfEvents(db: Db, eventIds: string[]): Promise<Map<string, DeliveryAttemptRecord[]>> {
  const byEvent = new Map<string, DeliveryAttemptRecord[]>(eventIds.map((id) => [id, []]));
  if (eventIds.length === 0) return byEvent;
  const rows = await db
    .selectFrom("delivery_attempts")
    .selectAll()
    .where("event_id", "in", eventIds)
    .orderBy("id")
    .execute();
  for (const row of rows) byEvent.get(row.event_id)?.push(attemptFromRow(row));
  return byEvent;
}

/** The event_type as it travels: the enum name, or the test-trigger names (docs/reference/contract.md#test-trigger). */
export function eventTypeName(type: EventType): string {
  if (type === EventType.TEST_CHARGE_CREATED) return "charge.created";
  if (type === EventType.TEST_CHARGE_FAIL) return "charge.fail";
  return `EVENT_TYPE_${EventType[type]}`;
}

/**
 * Writes a webhook event into the outbox, inside the caller's transaction: the event exists
 * exactly when the state change that caused it does (docs/reference/contract.md#webhooks). The content is
 * serialized here once; the dispatcher sends these bytes unchanged on every attempt.
 * Call `ctx.wake("events")` after the transaction commits.
 */
export type NewEvent = { merchantId: string; type: EventType; chargeId?: string; content: object; now: Date };

/** A new event's row: pending delivery, due at once. */
function eventRow(id: string, event: NewEvent) {
  const at = event.now.toISOString();
  return {
    id,
    merchant_id: event.merchantId,
    event_type: event.type,
    event_type_name: eventTypeName(event.type),
    charge_id: event.chargeId ?? "",
    content_json: JSON.stringify(event.content),
    created_at: at,
    delivery_status: DeliveryStatus.PENDING,
    attempt_count: 0,
    next_attempt_at: at,
    lease_until: null,
    delivered_at: null,
  };
}

/** `recordEvent` for many events at once (a Zengin result file), in chunks, in the given order. */
export async function recordEvents(trx: Tx, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows: (ReturnType<typeof eventRow> & { seq?: number })[] = events.map((event) => eventRow(newId("mwh"), event));
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) {
    // SQLite numbers an event in a trigger that updates the row just inserted (migration 0003):
    // for many events, give each the rowid it will get (the last one + 1: writers are serialised
    // on SQLite), as the trigger would, and save that second write per row.
    const last = await sql<{ n: number }>`select coalesce(max(rowid), 0) as n from events`.execute(trx);
    let seq = Number(last.rows[0].n);
    for (const row of rows) row.seq = ++seq;
  }
  await insertRows(trx, "events", rows);
}

export async function recordEvent(trx: Tx, event: NewEvent): Promise<string> {
  const id = newId("mwh");
  await trx.insertInto("events").values(eventRow(id, event)).execute();
  return id;
}
