import type { Kysely } from "kysely";

/**
 * The characters a consignor's bank accepts in names beyond the 全銀協 rules (some of `( ) - . /`,
 * docs/guide/direct-debit-files.md#characters-in-names). Existing consignors widen nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("zengin_consignors")
    .addColumn("name_characters", "text", (c) => c.notNull().defaultTo(""))
    .execute();
}
