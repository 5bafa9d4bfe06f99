import { assertChargeInvariants } from "../domain/invariants.js";
import { sql, type Kysely } from "kysely";
import { RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import type { ChargeRecord, RefundRecord } from "../domain/records.js";
import { chargeFromRow, refundFromRow, refundToRow } from "./records.js";
import type { Database } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";
import { runCompiled, slot } from "./compiled-once.js";

/** The merchant's charge, locked for the rest of the transaction (FOR UPDATE on PostgreSQL). */
export async function lockChargeOfMerchant(
  tx: Transactor,
  trx: Tx,
  merchantId: string,
  chargeId: string,
): Promise<ChargeRecord | undefined> {
  // A refund's statements are compiled once per database (compiled-once.ts); lockRows decides
  // the text per dialect, and each database has its own compiled queries.
  const [row] = await runCompiled(
    trx,
    "refund: lock charge",
    () =>
      tx.lockRows(
        trx.selectFrom("charges").selectAll().where("id", "=", slot("id")).where("merchant_id", "=", slot("merchant")),
      ),
    { id: chargeId, merchant: merchantId },
  );
  return row && chargeFromRow(row);
}

/** Writes what a refund changes on its charge: status, refunded and pending amounts. */
export async function saveChargeRefundState(trx: Tx, charge: ChargeRecord): Promise<void> {
  assertChargeInvariants(charge);
  await runCompiled(
    trx,
    "refund: charge state",
    () =>
      trx
        .updateTable("charges")
        .set({
          status: slot("status") as never,
          refunded_amount: slot("refunded") as never,
          pending_refund_amount: slot("pending") as never,
          updated_at: slot("updated at"),
        })
        .where("id", "=", slot("id")),
    {
      status: charge.status,
      refunded: charge.refundedAmount,
      pending: charge.pendingRefundAmount,
      "updated at": charge.updatedAt.toISOString(),
      id: charge.id,
    },
  );
}

/** Inserts a refund as its charge's next (`seq`); the caller holds the charge's lock, so two cannot take the same. */
export async function insertRefund(trx: Tx, refund: RefundRecord): Promise<void> {
  const row = refundToRow(refund);
  // refundToRow's columns are the same for every refund: each column's value goes in its slot.
  const columns = Object.keys(row) as (keyof typeof row)[];
  await runCompiled(
    trx,
    "refund: insert",
    () =>
      trx.insertInto("refunds").values({
        ...(Object.fromEntries(columns.map((column) => [column, slot(column)])) as unknown as typeof row),
        seq: (eb) =>
          eb
            .selectFrom("refunds")
            .select(sql<number>`coalesce(max(seq), 0) + 1`.as("next"))
            .where("charge_id", "=", slot("charge")),
      }),
    { ...row, charge: refund.chargeId },
  );
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
