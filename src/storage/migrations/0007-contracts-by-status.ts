import type { Kysely } from "kysely";

/** A returning customer's live contracts are found by status, however many old ones they have. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("contracts_customer_status")
    .on("contracts")
    .columns(["customer_id", "status", "created_at"])
    .execute();
}
