import type { Kysely } from "kysely";

/**
 * Re-debits and dunning (docs/guide/recurring-billing.md#re-debits-and-dunning): each plan's
 * dunning settings (defaults: no re-debit), a past-due subscription's reason and unpaid period;
 * each plan's notice days (振替予定のお知らせ) and the notices queued, once per subscription and period.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const text = "text" as const;
  const int = "integer" as const;
  await db.schema
    .alterTable("plans")
    .addColumn("dunning_action", text, (c) => c.notNull().defaultTo("stop"))
    .execute();
  await db.schema
    .alterTable("plans")
    .addColumn("dunning_retry_after_days", int, (c) => c.notNull().defaultTo(5))
    .execute();
  await db.schema
    .alterTable("plans")
    .addColumn("dunning_max_attempts", int, (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable("plans")
    .addColumn("dunning_cancel_on_give_up", int, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("plans")
    .addColumn("notice_days", int, (c) => c.notNull().defaultTo(3))
    .execute();
  // One 振替予定のお知らせ per subscription and period: the primary key is the send's unique key.
  await db.schema
    .createTable("subscription_notices")
    .addColumn("subscription_id", text, (c) => c.notNull().references("subscriptions.id"))
    .addColumn("period", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .addPrimaryKeyConstraint("subscription_notices_pk", ["subscription_id", "period"])
    .execute();
  await db.schema.alterTable("subscriptions").addColumn("past_due_reason", text).execute();
  await db.schema.alterTable("subscriptions").addColumn("past_due_period", text).execute();
}
