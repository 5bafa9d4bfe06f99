import type { Kysely } from "kysely";

/**
 * The account a customer gave on a payment link's bank step, held on the link until its payment
 * is approved: only then does it become the customer's account (an abandoned, expired or failed
 * link changes nothing).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("link_bank_accounts")
    .addColumn("link_id", "text", (c) => c.primaryKey())
    .addColumn("bank_code", "text", (c) => c.notNull())
    .addColumn("branch_code", "text", (c) => c.notNull())
    .addColumn("account_number", "text", (c) => c.notNull())
    .addColumn("account_holder", "text", (c) => c.notNull())
    .addColumn("linked_at", "text", (c) => c.notNull())
    .execute();
}
