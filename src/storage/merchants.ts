import { runCompiled, slot } from "./compiled-once.js";
import type { Kysely, Selectable } from "kysely";
import type { MerchantRecord, NewMerchant } from "../domain/merchant.js";
import { isOnboardingState, type OnboardingState } from "../domain/onboarding.js";
import type { Database, MerchantTable } from "./schema.js";
import { seal, unseal } from "./sealed.js";

type MerchantRow = Selectable<MerchantTable>;

/** A provisioned merchant: its webhook healthy, its secret sealed. */
export async function insertMerchant(db: Kysely<Database>, merchant: NewMerchant): Promise<void> {
  await db
    .insertInto("merchants")
    .values({
      id: merchant.id,
      name: merchant.name,
      logo_url: merchant.logoUrl,
      webhook_url: merchant.webhookUrl,
      webhook_secret: seal(merchant.webhookSecret),
      onboarding_state: merchant.onboardingState,
      webhook_failing: 0,
      webhook_failing_reason: "",
      created_at: merchant.createdAt.toISOString(),
    })
    .execute();
}

/** Row → record, the webhook secret unsealed. */
function merchantFromRow(row: MerchantRow): MerchantRecord;
function merchantFromRow(row: MerchantRow | undefined): MerchantRecord | undefined;
function merchantFromRow(row: MerchantRow | undefined): MerchantRecord | undefined {
  return (
    row && {
      id: row.id,
      name: row.name,
      logoUrl: row.logo_url,
      webhookUrl: row.webhook_url,
      webhookSecret: unseal(row.webhook_secret),
      onboardingState: onboardingStateOf(row.onboarding_state),
      webhookFailing: row.webhook_failing === 1,
      webhookFailingReason: row.webhook_failing_reason,
      dashboardTotpRequired: row.dashboard_totp_required === 1,
      supportEmail: row.support_email,
      supportPhone: row.support_phone,
      supportUrl: row.support_url,
      createdAt: new Date(row.created_at),
    }
  );
}

export async function insertApiKey(
  db: Kysely<Database>,
  key: {
    id: string;
    merchantId: string;
    keyHash: string;
    prefix: string;
    createdAt: Date;
    /** The dashboard session that made it (none: the command line, or the merchant's creation). */
    createdBy?: { userId: string; sessionHash: string };
  },
): Promise<void> {
  await db
    .insertInto("api_keys")
    .values({
      id: key.id,
      merchant_id: key.merchantId,
      key_hash: key.keyHash,
      prefix: key.prefix,
      created_at: key.createdAt.toISOString(),
      revoked_at: null,
      created_by_user_id: key.createdBy?.userId ?? null,
      created_in_session: key.createdBy?.sessionHash ?? null,
    })
    .execute();
}

/** The merchant an unrevoked API key belongs to. */
export async function findMerchantByKeyHash(
  db: Kysely<Database>,
  keyHash: string,
): Promise<MerchantRecord | undefined> {
  return merchantFromRow(
    await db
      .selectFrom("api_keys")
      .innerJoin("merchants", "merchants.id", "api_keys.merchant_id")
      .selectAll("merchants")
      .where("api_keys.key_hash", "=", keyHash)
      .where("api_keys.revoked_at", "is", null)
      .executeTakeFirst(),
  );
}

export async function findMerchant(db: Kysely<Database>, id: string): Promise<MerchantRecord | undefined> {
  const [row] = await runCompiled(
    db,
    "merchant by id",
    () => db.selectFrom("merchants").selectAll().where("id", "=", slot("id")),
    { id },
  );
  return merchantFromRow(row);
}

export async function listMerchants(db: Kysely<Database>): Promise<MerchantRecord[]> {
  return (await db.selectFrom("merchants").selectAll().orderBy("created_at").execute()).map((row) =>
    merchantFromRow(row),
  );
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

function onboardingStateOf(value: string): OnboardingState {
  if (!isOnboardingState(value)) throw new Error(`merchants.onboarding_state holds an unknown state: ${value}`);
  return value;
}

/**
 * Moves the merchant's onboarding state from `from` ("any": from any other state) to `to`, in one
 * conditional statement, so two decisions racing cannot both apply; true when it moved.
 */
export async function moveOnboardingState(
  db: Kysely<Database>,
  merchantId: string,
  from: OnboardingState | "any",
  to: OnboardingState,
): Promise<boolean> {
  const result = await db
    .updateTable("merchants")
    .set({ onboarding_state: to })
    .where("id", "=", merchantId)
    .where("onboarding_state", from === "any" ? "!=" : "=", from === "any" ? to : from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
