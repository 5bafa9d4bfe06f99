import type { Kysely } from "kysely";
import type { IdempotencyRecord } from "../domain/idempotency.js";
import type { Database, IdempotencyKeyTable } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";
import { idempotencyKeyFromRow, idempotencyKeyToRow } from "./records.js";

export async function findIdempotencyRecord(
  db: Kysely<Database>,
  merchantId: string,
  key: string,
): Promise<IdempotencyRecord | undefined> {
  const row = await db
    .selectFrom("idempotency_keys")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("idempotency_key", "=", key)
    .executeTakeFirst();
  return row && idempotencyKeyFromRow(row);
}

export async function lockIdempotencyRecord(
  tx: Transactor,
  trx: Tx,
  merchantId: string,
  key: string,
): Promise<IdempotencyRecord | undefined> {
  const row = await tx
    .lockRows(
      trx
        .selectFrom("idempotency_keys")
        .selectAll()
        .where("merchant_id", "=", merchantId)
        .where("idempotency_key", "=", key),
    )
    .executeTakeFirst();
  return row && idempotencyKeyFromRow(row);
}

/** Inserts a claim; false when a concurrent transaction inserted the key first. */
export async function insertIdempotencyRecord(trx: Tx, record: IdempotencyRecord): Promise<boolean> {
  const result = await trx
    .insertInto("idempotency_keys")
    .values(idempotencyKeyToRow(record))
    .onConflict((oc) => oc.columns(["merchant_id", "idempotency_key"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Overwrites a record (an expired one reused, or a claim taken over). */
export async function replaceIdempotencyRecord(trx: Tx, record: IdempotencyRecord): Promise<void> {
  const { merchant_id: merchantId, idempotency_key: key, ...fields } = idempotencyKeyToRow(record);
  await trx
    .updateTable("idempotency_keys")
    .set(fields)
    .where("merchant_id", "=", merchantId)
    .where("idempotency_key", "=", key)
    .execute();
}

/** Changes fields of a key that is still in flight (a completed record is never changed). */
export async function updateInFlightIdempotencyRecord(
  db: Kysely<Database>,
  merchantId: string,
  key: string,
  fields: Partial<Pick<IdempotencyKeyTable, "state" | "response_json" | "http_status" | "lease_until" | "resource_id">>,
): Promise<void> {
  await db
    .updateTable("idempotency_keys")
    .set(fields)
    .where("merchant_id", "=", merchantId)
    .where("idempotency_key", "=", key)
    .where("state", "=", "in_flight")
    .execute();
}

/** Frees a key (a request refused before it created anything stores nothing). */
export async function deleteIdempotencyRecord(trx: Tx, merchantId: string, key: string): Promise<void> {
  await trx
    .deleteFrom("idempotency_keys")
    .where("merchant_id", "=", merchantId)
    .where("idempotency_key", "=", key)
    .execute();
}

export async function deleteExpiredIdempotencyRecords(db: Kysely<Database>, now: Date): Promise<void> {
  await db.deleteFrom("idempotency_keys").where("expires_at", "<=", now.toISOString()).execute();
}
