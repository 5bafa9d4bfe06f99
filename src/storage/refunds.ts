import { assertChargeInvariants } from "../domain/invariants.js";
import { sql, type Kysely } from "kysely";
import { RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import type { ChargeRecord, RefundRecord } from "../domain/records.js";
import { chargeFromRow, refundFromRow, refundToRow } from "./records.js";
import type { Database } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";

/** The merchant's charge, locked for the rest of the transaction (FOR UPDATE on PostgreSQL). */
export async function lockChargeOfMerchant(
  tx: Transactor,
  trx: Tx,
  merchantId: string,
  chargeId: string,
): Promise<ChargeRecord | undefined> {
  const row = await tx
    .lockRows(trx.selectFrom("charges").selectAll().where("id", "=", chargeId).where("merchant_id", "=", merchantId))
    .executeTakeFirst();
  return row && chargeFromRow(row);
}

/** Writes what a refund changes on its charge: status, refunded and pending amounts. */
export async function saveChargeRefundState(trx: Tx, charge: ChargeRecord): Promise<void> {
  assertChargeInvariants(charge);
  await trx
    .updateTable("charges")
    .set({
      status: charge.status,
      refunded_amount: charge.refundedAmount,
      pending_refund_amount: charge.pendingRefundAmount,
      updated_at: charge.updatedAt.toISOString(),
    })
    .where("id", "=", charge.id)
    .execute();
}

/** Inserts a refund as its charge's next (`seq`); the caller holds the charge's lock, so two cannot take the same. */
export async function insertRefund(trx: Tx, refund: RefundRecord): Promise<void> {
  await trx
    .insertInto("refunds")
    .values({
      ...refundToRow(refund),
      seq: (eb) =>
        eb
          .selectFrom("refunds")
          .select(sql<number>`coalesce(max(seq), 0) + 1`.as("next"))
          .where("charge_id", "=", refund.chargeId),
    })
    .execute();
}

/** Writes a settlement outcome (status, root cause). */
export async function saveRefundOutcome(trx: Tx, refund: RefundRecord): Promise<void> {
  await trx
    .updateTable("refunds")
    .set({ status: refund.status, error_message: refund.errorMessage, updated_at: refund.updatedAt.toISOString() })
    .where("id", "=", refund.id)
    .execute();
}

/** A refund by id, unscoped (workers); `merchantId` scopes it for API reads. */
export async function findRefund(
  db: Kysely<Database>,
  id: string,
  merchantId?: string,
): Promise<RefundRecord | undefined> {
  let query = db.selectFrom("refunds").selectAll().where("id", "=", id);
  if (merchantId !== undefined) query = query.where("merchant_id", "=", merchantId);
  const row = await query.executeTakeFirst();
  return row && refundFromRow(row);
}

export async function findChargeById(db: Kysely<Database>, id: string): Promise<ChargeRecord | undefined> {
  const row = await db.selectFrom("charges").selectAll().where("id", "=", id).executeTakeFirst();
  return row && chargeFromRow(row);
}

/** The merchant's refunds still waiting for the bank, oldest first. */
export async function pendingRefundIdsOfMerchant(db: Kysely<Database>, merchantId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("refunds")
    .select("id")
    .where("merchant_id", "=", merchantId)
    .where("status", "=", RefundStatus.PENDING)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => row.id);
}
