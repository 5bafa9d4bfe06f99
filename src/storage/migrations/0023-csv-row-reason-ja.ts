import type { Kysely } from "kysely";

/**
 * A CSV row's reason in Japanese beside the English one (docs/guide/csv-batches.md#the-result-file):
 * the dashboard shows it and the result file's 理由 column carries it. Rows stored before have
 * none; they show the English reason.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("csv_rows")
    .addColumn("reason_ja", "text", (c) => c.notNull().defaultTo(""))
    .execute();
}
