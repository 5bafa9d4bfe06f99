import type { Kysely } from "kysely";
import { ContractStatus } from "../../gen/payments/v1/enums_pb.js";
import type { Cursor } from "../domain/page-token.js";
import type { ChargeRecord, ContractRecord, CustomerRecord, RefundRecord } from "../domain/records.js";
import { chargeFromRow, contractFromRow, customerFromRow, refundFromRow } from "./records.js";
import type { Database } from "./schema.js";
import { seal } from "./sealed.js";
import { olderThanCursor } from "./keyset-cursor.js";

/** Reads of the merchant dashboard, each scoped to one merchant. */

export async function contractsOfCustomer(
  db: Kysely<Database>,
  merchantId: string,
  customerId: string,
): Promise<ContractRecord[]> {
  const rows = await db
    .selectFrom("contracts")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("customer_id", "=", customerId)
    .orderBy("created_at", "desc")
    .execute();
  return rows.map(contractFromRow);
}

/** Newest first; the cursor is the (created_at, id) of the last charge of the previous page. */
export async function listChargesOfMerchant(
  db: Kysely<Database>,
  merchantId: string,
  options: { customerId?: string; limit: number; after?: Cursor },
): Promise<ChargeRecord[]> {
  let query = db.selectFrom("charges").selectAll().where("merchant_id", "=", merchantId);
  if (options.customerId) query = query.where("customer_id", "=", options.customerId);
  const after = options.after;
  if (after) {
    query = query.where((eb) =>
      olderThanCursor(eb, { time: "created_at", tie: "id" }, { time: after.createdAt, tie: after.id }),
    );
  }
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(options.limit).execute();
  return rows.map(chargeFromRow);
}

export async function refundsOfCharges(
  db: Kysely<Database>,
  chargeIds: string[],
): Promise<Map<string, RefundRecord[]>> {
  const byCharge = new Map<string, RefundRecord[]>();
  if (chargeIds.length === 0) return byCharge;
  const rows = await db
    .selectFrom("refunds")
    .selectAll()
    .where("charge_id", "in", chargeIds)
    // In the order each charge's refunds were accepted, as its (charge_id, seq) index holds them: no sort.
    .orderBy("charge_id")
    .orderBy("seq")
    .execute();
  for (const row of rows) byCharge.set(row.charge_id, [...(byCharge.get(row.charge_id) ?? []), refundFromRow(row)]);
  return byCharge;
}

/** Live customers of a merchant by id and by normalized e-mail, for resolving a CSV batch's rows. */
export async function customersForResolution(
  db: Kysely<Database>,
  merchantId: string,
  ids: string[],
  emailsNormalized: string[],
): Promise<CustomerRecord[]> {
  const live = db.selectFrom("customers").selectAll().where("deleted_at", "is", null);
  // Two look-ups, each by its own index: by id alone (the merchant checked on the rows found) and
  // by (merchant, e-mail); one query with both would read the merchant's every customer
  // (docs/operations/benchmark.md#history-independence).
  const byId = ids.length ? await live.where("id", "in", ids).execute() : [];
  const byEmail = emailsNormalized.length
    ? await live.where("merchant_id", "=", merchantId).where("email_normalized", "in", emailsNormalized).execute()
    : [];
  const rows = new Map(
    [...byId, ...byEmail].filter((row) => row.merchant_id === merchantId).map((row) => [row.id, row]),
  );
  return [...rows.values()].map(customerFromRow);
}

/** The ACTIVATED contracts of these customers, newest first. */
export async function activatedContractsOf(db: Kysely<Database>, customerIds: string[]): Promise<ContractRecord[]> {
  if (customerIds.length === 0) return [];
  const rows = await db
    .selectFrom("contracts")
    .selectAll()
    .where("customer_id", "in", customerIds)
    .where("status", "=", ContractStatus.ACTIVATED)
    .orderBy("created_at", "desc")
    .execute();
  return rows.map(contractFromRow);
}

export async function apiKeysOfMerchant(
  db: Kysely<Database>,
  merchantId: string,
): Promise<Array<{ id: string; prefix: string; createdAt: Date; revokedAt: Date | null }>> {
  const rows = await db
    .selectFrom("api_keys")
    .select(["id", "prefix", "created_at", "revoked_at"])
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at", "desc")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    prefix: row.prefix,
    createdAt: new Date(row.created_at),
    revokedAt: row.revoked_at ? new Date(row.revoked_at) : null,
  }));
}

/** Revokes one unrevoked key of the merchant. */
export async function revokeApiKey(db: Kysely<Database>, merchantId: string, keyId: string, at: string): Promise<void> {
  await db
    .updateTable("api_keys")
    .set({ revoked_at: at })
    .where("merchant_id", "=", merchantId)
    .where("id", "=", keyId)
    .where("revoked_at", "is", null)
    .execute();
}

export async function setWebhookSecret(db: Kysely<Database>, merchantId: string, secret: string): Promise<void> {
  await db
    .updateTable("merchants")
    .set({ webhook_secret: seal(secret) })
    .where("id", "=", merchantId)
    .execute();
}
