import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * Webhook delivery: the order events were recorded in (`seq`: events of one charge go out one at a
 * time, in that order, so charge.created precedes charge.fail), when the current retry cycle began
 * (its first attempt; null before it and again after a redelivery), and the indexes the
 * dispatcher and the event API read by.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table events add column seq bigserial`.execute(db);
  } else {
    // SQLite cannot add a column with a sequence default: number each row by its rowid on insert.
    await sql`alter table events add column seq integer`.execute(db);
    await sql`update events set seq = rowid`.execute(db);
    await sql`create trigger events_seq after insert on events for each row when new.seq is null
      begin update events set seq = new.rowid where rowid = new.rowid; end`.execute(db);
  }
  await db.schema.alterTable("events").addColumn("retry_window_started_at", "text").execute();
  // The dispatcher claims each merchant's due events separately (fairness between merchants).
  await db.schema
    .createIndex("events_merchant_due")
    .on("events")
    .columns(["merchant_id", "delivery_status", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("events_merchant_charge")
    .on("events")
    .columns(["merchant_id", "charge_id", "seq"])
    .execute();
}
