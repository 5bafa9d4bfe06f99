import type { Kysely } from "kysely";
import type { BankVerificationFailure, MandateVerification } from "../../gen/payments/v1/enums_pb.js";
import type { BankAccountSummaryView } from "../domain/bank-account.js";
import type { AccountVerificationTable, Database } from "./schema.js";
import { seal, unseal } from "./sealed.js";
import type { Transactor, Tx } from "./transactor.js";

export type VerificationStatus = "pending" | "verified" | "failed";

/** The account a payment link chose, sealed, and where its bank's verification stands. */
export interface AccountVerificationRecord {
  id: string;
  linkId: string;
  method: MandateVerification;
  stateHash: string;
  returnUrl: string;
  /** Sealed; open with storage/sealed.ts unseal (only where the account is booked). */
  accountSealed: string;
  accountHash: string;
  summary: BankAccountSummaryView;
  status: VerificationStatus;
  failure: BankVerificationFailure;
  createdAt: Date;
  expiresAt: Date;
  verifiedAt: Date | null;
  codeHash: string | null;
  codeIssuedAt: Date | null;
  codeUsedAt: Date | null;
}

const dateOrNull = (value: string | null) => (value ? new Date(value) : null);

function fromRow(row: AccountVerificationTable): AccountVerificationRecord {
  return {
    id: row.id,
    linkId: row.link_id,
    method: row.method,
    stateHash: row.state_hash,
    returnUrl: unseal(row.return_url),
    accountSealed: row.account_sealed,
    accountHash: row.account_hash,
    summary: JSON.parse(row.summary_json),
    status: row.status as VerificationStatus,
    failure: row.failure,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    verifiedAt: dateOrNull(row.verified_at),
    codeHash: row.code_hash,
    codeIssuedAt: dateOrNull(row.code_issued_at),
    codeUsedAt: dateOrNull(row.code_used_at),
  };
}

/** Inserts a verification; `account` is the serialised details, sealed here. */
export async function insertAccountVerification(
  trx: Tx,
  record: Omit<AccountVerificationRecord, "accountSealed"> & { account: string },
): Promise<void> {
  await trx
    .insertInto("account_verifications")
    .values({
      id: record.id,
      link_id: record.linkId,
      method: record.method,
      state_hash: record.stateHash,
      // It holds the payment link's token, which is never stored in clear.
      return_url: seal(record.returnUrl),
      account_sealed: seal(record.account),
      account_hash: record.accountHash,
      summary_json: JSON.stringify(record.summary),
      status: record.status,
      failure: record.failure,
      created_at: record.createdAt.toISOString(),
      expires_at: record.expiresAt.toISOString(),
      verified_at: record.verifiedAt?.toISOString() ?? null,
      code_hash: null,
      code_issued_at: null,
      code_used_at: null,
    })
    .execute();
}

export async function findAccountVerification(
  db: Kysely<Database>,
  id: string,
): Promise<AccountVerificationRecord | undefined> {
  const row = await db.selectFrom("account_verifications").selectAll().where("id", "=", id).executeTakeFirst();
  return row && fromRow(row);
}

/** The link's verification started with this state (by its hash), if any. */
export async function findVerificationByState(
  db: Kysely<Database>,
  linkId: string,
  stateHash: string,
): Promise<AccountVerificationRecord | undefined> {
  const row = await db
    .selectFrom("account_verifications")
    .selectAll()
    .where("link_id", "=", linkId)
    .where("state_hash", "=", stateHash)
    .executeTakeFirst();
  return row && fromRow(row);
}

/** The link's newest verified account: the one its approval makes the contract's. */
export async function findVerifiedAccountOfLink(
  db: Kysely<Database>,
  linkId: string,
): Promise<AccountVerificationRecord | undefined> {
  const row = await db
    .selectFrom("account_verifications")
    .selectAll()
    .where("link_id", "=", linkId)
    .where("status", "=", "verified")
    .orderBy("verified_at", "desc")
    .executeTakeFirst();
  return row && fromRow(row);
}

export async function lockAccountVerification(
  tx: Transactor,
  trx: Tx,
  id: string,
): Promise<AccountVerificationRecord | undefined> {
  const row = await tx
    .lockRows(trx.selectFrom("account_verifications").selectAll().where("id", "=", id))
    .executeTakeFirst();
  return row && fromRow(row);
}

export async function finishAccountVerification(
  trx: Tx,
  id: string,
  outcome: { status: "verified"; at: Date } | { status: "failed"; failure: BankVerificationFailure },
): Promise<void> {
  await trx
    .updateTable("account_verifications")
    .set(
      outcome.status === "verified"
        ? { status: "verified", verified_at: outcome.at.toISOString() }
        : { status: "failed", failure: outcome.failure },
    )
    .where("id", "=", id)
    .execute();
}

/** The simulated bank's side: the code it gave the customer, and when it was redeemed. */
export async function saveBankCode(trx: Tx, id: string, codeHash: string, at: Date): Promise<void> {
  await trx
    .updateTable("account_verifications")
    .set({ code_hash: codeHash, code_issued_at: at.toISOString(), code_used_at: null })
    .where("id", "=", id)
    .execute();
}

export async function markBankCodeUsed(trx: Tx, id: string, at: Date): Promise<void> {
  await trx.updateTable("account_verifications").set({ code_used_at: at.toISOString() }).where("id", "=", id).execute();
}
