import type { Kysely } from "kysely";

/**
 * The CSV import of subscriptions (docs/guide/recurring-billing.md#importing-subscriptions-from-a-csv-file)
 * shares the CSV batches' tables and their TOTP challenges: a batch says what it holds (`kind`:
 * charges, as every batch before, or subscriptions), and an imported row names the subscription it
 * created.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("csv_batches")
    .addColumn("kind", "text", (c) => c.notNull().defaultTo("charges"))
    .execute();
  await db.schema.alterTable("csv_rows").addColumn("subscription_id", "text").execute();
}
