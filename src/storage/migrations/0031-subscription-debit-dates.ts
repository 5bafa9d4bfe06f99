import type { Kysely } from "kysely";

/**
 * The cycle and the notices walk subscriptions by debit date: the distinct due dates read off this
 * index in order, a date's due subscriptions page through it by id, and the notice candidates by
 * (date, id). The status rides along so none reads the table to skip a paused or ended one. It
 * replaces 0028's (status, date, id) index, whose two status ranges needed a sort to merge.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("subscriptions_by_debit_date")
    .on("subscriptions")
    .columns(["next_debit_date", "id", "status"])
    .execute();
  await db.schema.dropIndex("subscriptions_due").execute();
}
