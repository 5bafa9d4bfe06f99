import type { Kysely } from "kysely";

/**
 * 合算 (DUNNING_ACTION_CARRY_OVER, docs/guide/recurring-billing.md#re-debits-and-dunning): the unpaid
 * amounts a subscription carries to its next charged period, and those a period's charge carried
 * in, as JSON lists of {period, attempt, amount}. The plans' dunning_action text takes the new value.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("subscriptions")
    .addColumn("carry_json", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
  await db.schema
    .alterTable("subscription_periods")
    .addColumn("carried_json", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
}
