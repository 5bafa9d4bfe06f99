import type { Kysely } from "kysely";
import type { StopRequestRecord } from "../domain/stop-request.js";
import type { Database, StopRequestTable } from "./schema.js";
import type { Tx } from "./transactor.js";

function fromRow(row: StopRequestTable): StopRequestRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    customerId: row.customer_id,
    contractId: row.contract_id,
    reason: row.reason,
    requestedAt: new Date(row.requested_at),
  };
}

export async function insertStopRequest(trx: Tx, request: StopRequestRecord): Promise<void> {
  await trx
    .insertInto("stop_requests")
    .values({
      id: request.id,
      merchant_id: request.merchantId,
      customer_id: request.customerId,
      contract_id: request.contractId,
      reason: request.reason,
      requested_at: request.requestedAt.toISOString(),
    })
    .execute();
}

/** The contract's stop request, if one was made. */
export async function findStopRequestOfContract(
  db: Kysely<Database>,
  contractId: string,
): Promise<StopRequestRecord | undefined> {
  const row = await db.selectFrom("stop_requests").selectAll().where("contract_id", "=", contractId).executeTakeFirst();
  return row && fromRow(row);
}

/** The stop requests of these contracts, by contract. */
export async function stopRequestsOfContracts(
  db: Kysely<Database>,
  contractIds: readonly string[],
): Promise<Map<string, StopRequestRecord>> {
  if (contractIds.length === 0) return new Map();
  const rows = await db.selectFrom("stop_requests").selectAll().where("contract_id", "in", contractIds).execute();
  return new Map(rows.map((row) => [row.contract_id, fromRow(row)]));
}

/** A merchant's customer's stop requests, newest first (the dashboard's customer page). */
export async function stopRequestsOfCustomer(
  db: Kysely<Database>,
  merchantId: string,
  customerId: string,
): Promise<StopRequestRecord[]> {
  const rows = await db
    .selectFrom("stop_requests")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("customer_id", "=", customerId)
    .orderBy("requested_at", "desc")
    .execute();
  return rows.map(fromRow);
}
