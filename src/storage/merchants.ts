import type { Insertable, Kysely, Selectable } from "kysely";
import type { Database, MerchantTable } from "./schema.js";
import { seal, unseal } from "./sealed.js";

export type MerchantRow = Selectable<MerchantTable>;

export async function insertMerchant(db: Kysely<Database>, merchant: Insertable<MerchantTable>): Promise<void> {
  await db
    .insertInto("merchants")
    .values({ ...merchant, webhook_secret: seal(merchant.webhook_secret) })
    .execute();
}

/** The row with its webhook secret unsealed. */
function opened(row: MerchantRow): MerchantRow;
function opened(row: MerchantRow | undefined): MerchantRow | undefined;
function opened(row: MerchantRow | undefined): MerchantRow | undefined {
  return row && { ...row, webhook_secret: unseal(row.webhook_secret) };
}

export async function insertApiKey(
  db: Kysely<Database>,
  key: { id: string; merchant_id: string; key_hash: string; prefix: string; created_at: string },
): Promise<void> {
  await db
    .insertInto("api_keys")
    .values({ ...key, revoked_at: null })
    .execute();
}

/** The merchant an unrevoked API key belongs to. */
export async function findMerchantByKeyHash(db: Kysely<Database>, keyHash: string): Promise<MerchantRow | undefined> {
  return opened(
    await db
      .selectFrom("api_keys")
      .innerJoin("merchants", "merchants.id", "api_keys.merchant_id")
      .selectAll("merchants")
      .where("api_keys.key_hash", "=", keyHash)
      .where("api_keys.revoked_at", "is", null)
      .executeTakeFirst(),
  );
}

export async function findMerchant(db: Kysely<Database>, id: string): Promise<MerchantRow | undefined> {
  return opened(await db.selectFrom("merchants").selectAll().where("id", "=", id).executeTakeFirst());
}

export async function listMerchants(db: Kysely<Database>): Promise<MerchantRow[]> {
  return (await db.selectFrom("merchants").selectAll().orderBy("created_at").execute()).map((row) => opened(row));
}

export async function revokeApiKeys(db: Kysely<Database>, merchantId: string, at: string): Promise<void> {
  await db
    .updateTable("api_keys")
    .set({ revoked_at: at })
    .where("merchant_id", "=", merchantId)
    .where("revoked_at", "is", null)
    .execute();
}

/** True when the merchant exists. */
export async function updateWebhookUrl(db: Kysely<Database>, merchantId: string, url: string): Promise<boolean> {
  const result = await db
    .updateTable("merchants")
    .set({ webhook_url: url })
    .where("id", "=", merchantId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function updateSupportContact(
  db: Kysely<Database>,
  merchantId: string,
  contact: { email: string; phone: string; url: string },
): Promise<boolean> {
  const result = await db
    .updateTable("merchants")
    .set({ support_email: contact.email, support_phone: contact.phone, support_url: contact.url })
    .where("id", "=", merchantId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
