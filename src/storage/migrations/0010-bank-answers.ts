import type { Kysely } from "kysely";

/**
 * The simulated bank's answer to each reference (trx-* or rfd-*), refusals included: one
 * reference gets one answer, however often and by whomever it is asked.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("bank_answers")
    .addColumn("reference", "text", (c) => c.primaryKey())
    .addColumn("ok", "integer", (c) => c.notNull())
    .addColumn("error_type", "integer", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("at", "text", (c) => c.notNull())
    .execute();
}
