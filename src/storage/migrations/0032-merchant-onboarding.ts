import { sql, type Kysely } from "kysely";

/**
 * Merchants get an onboarding state (src/domain/onboarding.ts) in place of the flag nothing ever
 * cleared: merchants made so far (by `furikomi merchants create`) stay complete, a merchant the
 * flag marked incomplete stays incomplete. The going-live checklist (src/domain/onboarding-checklist.ts)
 * keeps what the merchant saved of it, one row per merchant.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("merchants")
    .addColumn("onboarding_state", "text", (c) => c.notNull().defaultTo("complete"))
    .execute();
  await sql`update merchants set onboarding_state = 'incomplete' where onboarding_complete = 0`.execute(db);
  await db.schema.alterTable("merchants").dropColumn("onboarding_complete").execute();

  const text = "text" as const;
  await db.schema
    .createTable("onboarding_checklists")
    .addColumn("merchant_id", text, (c) => c.primaryKey().references("merchants.id"))
    // BusinessDetails as JSON; "" until saved.
    .addColumn("business_json", text, (c) => c.notNull().defaultTo(""))
    // The test event (mwh-…) sent to check the webhook endpoint; done once it was delivered.
    .addColumn("webhook_test_event_id", text, (c) => c.notNull().defaultTo(""))
    .addColumn("terms_version", text, (c) => c.notNull().defaultTo(""))
    .addColumn("terms_accepted_at", text)
    .addColumn("terms_accepted_by", text, (c) => c.notNull().defaultTo(""))
    .addColumn("sent_back_reason", text, (c) => c.notNull().defaultTo(""))
    .addColumn("updated_at", text, (c) => c.notNull())
    .execute();
}
