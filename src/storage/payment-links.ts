import { insertRows } from "./bulk-insert.js";
import type { Kysely } from "kysely";
import { hashLinkToken, type LinkState, type PaymentLinkRecord } from "../domain/payment-link.js";
import type { Database } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";
import { paymentLinkFromRow } from "./records.js";
import { seal, unseal } from "./sealed.js";

export async function insertPaymentLink(trx: Tx, link: PaymentLinkRecord): Promise<void> {
  // insertRows: SQL text built once, not by Kysely on every on-session create.
  await insertRows(trx, "payment_links", [
    {
      id: link.id,
      merchant_id: link.merchantId,
      token_hash: hashLinkToken(link.token),
      token_sealed: seal(link.token),
      workflow: link.workflow,
      customer_id: link.customerId,
      contract_id: link.contractId,
      charge_id: link.chargeId,
      price: link.price,
      description: link.description,
      metadata_json: JSON.stringify(link.metadata),
      email: link.email,
      force_kyc: link.forceKyc ? 1 : 0,
      success_url: link.successUrl,
      failure_url: link.failureUrl,
      state: link.state,
      two_factor_verified: link.twoFactorVerified ? 1 : 0,
      bank_linked: link.bankLinked ? 1 : 0,
      kyc_submitted: link.kycSubmitted ? 1 : 0,
      expires_at: link.expiresAt.toISOString(),
      completed_at: link.completedAt?.toISOString() ?? null,
      created_at: link.createdAt.toISOString(),
      updated_at: link.updatedAt.toISOString(),
    },
  ]);
}

export async function findPaymentLinkByToken(
  db: Kysely<Database>,
  token: string,
): Promise<PaymentLinkRecord | undefined> {
  const row = await db
    .selectFrom("payment_links")
    .selectAll()
    .where("token_hash", "=", hashLinkToken(token))
    .executeTakeFirst();
  return row && paymentLinkFromRow(row, token);
}

export async function findPaymentLinkById(db: Kysely<Database>, id: string): Promise<PaymentLinkRecord | undefined> {
  const row = await db.selectFrom("payment_links").selectAll().where("id", "=", id).executeTakeFirst();
  return row && paymentLinkFromRow(row);
}

/** The link with its token (unsealed), to answer a create retried after a crash with the same URL. */
export async function findPaymentLinkWithToken(
  db: Kysely<Database>,
  id: string,
): Promise<PaymentLinkRecord | undefined> {
  const row = await db.selectFrom("payment_links").selectAll().where("id", "=", id).executeTakeFirst();
  return row && paymentLinkFromRow(row, row.token_sealed ? unseal(row.token_sealed) : "");
}

/** Reads the link inside a write transaction, locked against concurrent writers. */
export async function lockPaymentLink(tx: Transactor, trx: Tx, id: string): Promise<PaymentLinkRecord | undefined> {
  const row = await tx.lockRows(trx.selectFrom("payment_links").selectAll().where("id", "=", id)).executeTakeFirst();
  return row && paymentLinkFromRow(row);
}

/**
 * Moves the link from one of `from` to `to` in one conditional UPDATE: true for exactly one of
 * any number of concurrent callers.
 */
export async function transitionPaymentLink(
  trx: Tx,
  id: string,
  change: { from: LinkState[]; to: LinkState; now: Date },
): Promise<boolean> {
  const now = change.now.toISOString();
  const result = await trx
    .updateTable("payment_links")
    .set({
      state: change.to,
      updated_at: now,
      ...(change.to === "completed" || change.to === "failed" ? { completed_at: now } : {}),
    })
    .where("id", "=", id)
    .where("state", "in", change.from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records a finished page step (two-factor, bank link, KYC form) on the link. */
export async function markPaymentLinkStep(
  trx: Tx,
  id: string,
  step: "two_factor_verified" | "bank_linked" | "kyc_submitted",
  now: Date,
): Promise<void> {
  await trx
    .updateTable("payment_links")
    .set({ [step]: 1, updated_at: now.toISOString() })
    .where("id", "=", id)
    .execute();
}

/** The customer's links held in WAITING_EKYC, waiting for a KYC decision. */
export async function findLinksWaitingForKyc(db: Kysely<Database>, customerId: string): Promise<PaymentLinkRecord[]> {
  const rows = await db
    .selectFrom("payment_links")
    .selectAll()
    .where("customer_id", "=", customerId)
    .where("state", "=", "waiting_kyc")
    .execute();
  return rows.map((row) => paymentLinkFromRow(row));
}
