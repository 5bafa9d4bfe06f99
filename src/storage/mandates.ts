import type { Kysely } from "kysely";
import type { MandateVerification } from "../../gen/payments/v1/enums_pb.js";
import type { BankAccountSummaryView } from "../domain/bank-account.js";
import type { Database, MandateTable } from "./schema.js";
import type { Tx } from "./transactor.js";

/** A mandate and its consent evidence as the merchant may see it: the account masked, its details only hashed. */
export interface MandateRecord {
  id: string;
  merchantId: string;
  customerId: string;
  contractId: string;
  linkId: string;
  verificationId: string;
  method: MandateVerification;
  accountHash: string;
  summary: BankAccountSummaryView;
  termsVersion: string;
  acceptedAt: Date;
  clientAddress: string;
  userAgent: string;
  verifiedAt: Date | null;
}

function fromRow(row: MandateTable): MandateRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    customerId: row.customer_id,
    contractId: row.contract_id,
    linkId: row.link_id,
    verificationId: row.verification_id,
    method: row.method,
    accountHash: row.account_hash,
    summary: JSON.parse(row.summary_json),
    termsVersion: row.terms_version,
    acceptedAt: new Date(row.accepted_at),
    clientAddress: row.client_address,
    userAgent: row.user_agent,
    verifiedAt: row.verified_at ? new Date(row.verified_at) : null,
  };
}

/** Records a link's mandate once (a second one for the link is ignored; the table refuses updates); `accountSealed` is already sealed. */
export async function insertMandate(trx: Tx, mandate: MandateRecord & { accountSealed: string }): Promise<void> {
  await trx
    .insertInto("mandates")
    .values({
      id: mandate.id,
      merchant_id: mandate.merchantId,
      customer_id: mandate.customerId,
      contract_id: mandate.contractId,
      link_id: mandate.linkId,
      verification_id: mandate.verificationId,
      method: mandate.method,
      account_sealed: mandate.accountSealed,
      account_hash: mandate.accountHash,
      summary_json: JSON.stringify(mandate.summary),
      terms_version: mandate.termsVersion,
      accepted_at: mandate.acceptedAt.toISOString(),
      client_address: mandate.clientAddress,
      user_agent: mandate.userAgent,
      verified_at: mandate.verifiedAt?.toISOString() ?? null,
    })
    .onConflict((oc) => oc.column("link_id").doNothing())
    .execute();
}

/** The contract's current mandate: the newest one given for it. */
export async function findMandateOfContract(
  db: Kysely<Database>,
  merchantId: string,
  contractId: string,
): Promise<MandateRecord | undefined> {
  const row = await db
    .selectFrom("mandates")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("contract_id", "=", contractId)
    .orderBy("accepted_at", "desc")
    .executeTakeFirst();
  return row && fromRow(row);
}

/** The merchant's mandates, oldest first, optionally of one contract (the export). */
export async function listMandates(
  db: Kysely<Database>,
  merchantId: string,
  contractId?: string,
): Promise<MandateRecord[]> {
  let query = db.selectFrom("mandates").selectAll().where("merchant_id", "=", merchantId);
  if (contractId) query = query.where("contract_id", "=", contractId);
  return (await query.orderBy("accepted_at").orderBy("id").execute()).map(fromRow);
}

/** The current (newest) mandate of each of these contracts, by contract. */
export async function mandatesOfContracts(
  db: Kysely<Database>,
  contractIds: readonly string[],
): Promise<Map<string, MandateRecord>> {
  if (contractIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("mandates")
    .selectAll()
    .where("contract_id", "in", [...contractIds])
    .orderBy("contract_id")
    .orderBy("accepted_at")
    .execute();
  return new Map(rows.map((row) => [row.contract_id, fromRow(row)]));
}
