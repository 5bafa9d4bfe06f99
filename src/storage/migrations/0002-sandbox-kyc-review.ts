import type { Kysely } from "kysely";

/** How the sandbox decides a merchant's submitted KYC (SandboxService.ConfigureKycReview). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("kyc_review_settings")
    .addColumn("merchant_id", "text", (c) => c.primaryKey())
    .addColumn("mode", "integer", (c) => c.notNull())
    .addColumn("delay_seconds", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}
