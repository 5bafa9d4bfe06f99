import type { OneTimeCodeRecord } from "../domain/one-time-code.js";
import type { Transactor, Tx } from "./transactor.js";
import { oneTimeCodeFromRow } from "./records.js";

export async function insertOneTimeCode(trx: Tx, paymentLinkId: string, code: OneTimeCodeRecord): Promise<void> {
  await trx
    .insertInto("one_time_codes")
    .values({
      id: code.id,
      payment_link_id: paymentLinkId,
      code_hash: code.codeHash,
      attempts: code.attempts,
      expires_at: code.expiresAt.toISOString(),
      used_at: null,
      created_at: code.createdAt.toISOString(),
    })
    .execute();
}

/**
 * The codes of a link (or of a customer-app e-mail, owner `app:<e-mail>`), newest first: only the
 * newest one can be entered.
 */
export async function lockCodesOfLink(tx: Transactor, trx: Tx, paymentLinkId: string): Promise<OneTimeCodeRecord[]> {
  const rows = await tx
    .lockRows(
      trx
        .selectFrom("one_time_codes")
        .selectAll()
        .where("payment_link_id", "=", paymentLinkId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc"),
    )
    .execute();
  return rows.map(oneTimeCodeFromRow);
}

export async function saveCodeAttempt(trx: Tx, code: OneTimeCodeRecord): Promise<void> {
  await trx
    .updateTable("one_time_codes")
    .set({ attempts: code.attempts, used_at: code.usedAt?.toISOString() ?? null })
    .where("id", "=", code.id)
    .execute();
}

/** Forgets a code (one that could not be delivered). */
export async function deleteOneTimeCode(trx: Tx, id: string): Promise<void> {
  await trx.deleteFrom("one_time_codes").where("id", "=", id).execute();
}

/** Forgets an owner's codes sent before `beforeIso` (a customer-app e-mail's codes older than a day). */
export async function deleteOneTimeCodesBefore(trx: Tx, ownerId: string, beforeIso: string): Promise<void> {
  await trx
    .deleteFrom("one_time_codes")
    .where("payment_link_id", "=", ownerId)
    .where("created_at", "<", beforeIso)
    .execute();
}
