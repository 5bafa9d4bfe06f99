import type { Kysely } from "kysely";
import type { AsyncRequestRecord } from "../domain/async-request.js";
import type { Database } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";
import { asyncRequestFromRow } from "./records.js";
import { inSortedIdChunks, updateGrouped } from "./charges.js";
import { insertRows } from "./bulk-insert.js";

export async function insertAsyncRequest(trx: Tx, request: AsyncRequestRecord): Promise<void> {
  // insertRows: SQL text built once, not by Kysely on every create (docs/operations/benchmark.md).
  await insertRows(trx, "async_requests", [
    {
      id: request.id,
      merchant_id: request.merchantId,
      charge_id: request.chargeId,
      status: request.status,
      attempts: request.attempts,
      force_kyc: request.forceKyc ? 1 : 0,
      error_type: request.errorType,
      error_message: request.errorMessage,
      created_at: request.createdAt.toISOString(),
      updated_at: request.updatedAt.toISOString(),
    },
  ]);
}

/** Writes a change made by the async request state machine. */
export async function saveAsyncRequestStatus(trx: Tx, request: AsyncRequestRecord): Promise<void> {
  await trx
    .updateTable("async_requests")
    .set({
      status: request.status,
      attempts: request.attempts,
      error_type: request.errorType,
      error_message: request.errorMessage,
      updated_at: request.updatedAt.toISOString(),
    })
    .where("id", "=", request.id)
    .execute();
}

/** `saveAsyncRequestStatus` for many requests at once (grouped by change). */
export async function saveAsyncRequestStatuses(trx: Tx, requests: readonly AsyncRequestRecord[]): Promise<void> {
  await updateGrouped(
    requests.map((request) => ({
      id: request.id,
      set: {
        status: request.status,
        attempts: request.attempts,
        error_type: request.errorType,
        error_message: request.errorMessage,
        updated_at: request.updatedAt.toISOString(),
      },
    })),
    (set, ids) => trx.updateTable("async_requests").set(set).where("id", "in", ids).execute(),
  );
}

/** Scoped to one merchant: another merchant's request reads exactly like a missing one. */
export async function findAsyncRequest(
  db: Kysely<Database>,
  merchantId: string,
  id: string,
): Promise<AsyncRequestRecord | undefined> {
  const row = await db
    .selectFrom("async_requests")
    .selectAll()
    .where("id", "=", id)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return row && asyncRequestFromRow(row);
}

export async function lockAsyncRequest(tx: Transactor, trx: Tx, id: string): Promise<AsyncRequestRecord | undefined> {
  const row = await tx.lockRows(trx.selectFrom("async_requests").selectAll().where("id", "=", id)).executeTakeFirst();
  return row && asyncRequestFromRow(row);
}

/** Locks many requests by id, in id order (see lockChargesByIds); by id in the map returned. */
export async function lockAsyncRequests(
  tx: Transactor,
  trx: Tx,
  ids: readonly string[],
): Promise<Map<string, AsyncRequestRecord>> {
  const rows = await inSortedIdChunks(ids, (chunk) =>
    tx.lockRows(trx.selectFrom("async_requests").selectAll().where("id", "in", chunk).orderBy("id")).execute(),
  );
  return new Map(rows.map((row) => [row.id, asyncRequestFromRow(row)]));
}
