import type { Kysely } from "kysely";
import type { AsyncRequestRecord } from "../domain/async-request.js";
import type { Database } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";
import { asyncRequestFromRow } from "./records.js";

export async function insertAsyncRequest(trx: Tx, request: AsyncRequestRecord): Promise<void> {
  await trx
    .insertInto("async_requests")
    .values({
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
    })
    .execute();
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
