import type { Kysely } from "kysely";

/** Wrong PIN / one-time password entries per simulated bank account and JST day (the daily lock). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("bank_authentication_failures")
    .addColumn("account_key", "text", (c) => c.notNull())
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("bank_authentication_failures_pk", ["account_key", "day"])
    .execute();
}
