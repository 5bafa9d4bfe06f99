import type { Kysely } from "kysely";

/**
 * A contract's result style (docs/guide/direct-debit-files.md#result-styles): `all` (every debit
 * answered, what every contract had so far) or `failures_only` (不能分のみ); and whether a received
 * file came into incoming/ with a name the exchange does not expect
 * (docs/operations/zengin.md#unexpected-file-names), so the dashboard can show it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("zengin_contracts")
    .addColumn("result_style", "text", (c) => c.notNull().defaultTo("all"))
    .execute();
  await db.schema
    .alterTable("zengin_files")
    .addColumn("unexpected_name", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}
