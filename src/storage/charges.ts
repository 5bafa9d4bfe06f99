import { assertChargeInvariants } from "../domain/invariants.js";
import type { ChargeRecord } from "../domain/records.js";
import { chargeFromRow, chargeToRow } from "./records.js";
import type { Transactor, Tx } from "./transactor.js";

export async function insertCharge(trx: Tx, charge: ChargeRecord): Promise<void> {
  assertChargeInvariants(charge);
  await trx.insertInto("charges").values(chargeToRow(charge)).execute();
}

/** Writes a status change made by the charge state machine (status, error, timestamps). */
export async function saveChargeStatus(trx: Tx, charge: ChargeRecord): Promise<void> {
  assertChargeInvariants(charge);
  await trx
    .updateTable("charges")
    .set({
      status: charge.status,
      error_type: charge.errorType,
      error_message: charge.errorMessage,
      succeeded_at: charge.succeededAt?.toISOString() ?? null,
      updated_at: charge.updatedAt.toISOString(),
    })
    .where("id", "=", charge.id)
    .execute();
}

export async function lockCharge(tx: Transactor, trx: Tx, id: string): Promise<ChargeRecord | undefined> {
  const row = await tx.lockRows(trx.selectFrom("charges").selectAll().where("id", "=", id)).executeTakeFirst();
  return row && chargeFromRow(row);
}
