import type { Kysely } from "kysely";

/**
 * Recurring billing (docs/guide/recurring-billing.md): plans with their price versions,
 * subscriptions, each subscription's periods (one per subscription and period: the primary key is
 * what keeps a crash or a second instance from charging a period twice) and each period's
 * attempts (its charges: attempt 1 is the period's charge, later ones the re-debits to come).
 * A charge keeps its discount, so its initial amount is amount + discount.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const text = "text" as const;
  const int = "integer" as const;
  await db.schema
    .alterTable("charges")
    .addColumn("discount", int, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("plans")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull().references("merchants.id"))
    .addColumn("name", text, (c) => c.notNull())
    .addColumn("interval_unit", text, (c) => c.notNull())
    .addColumn("interval_count", int, (c) => c.notNull())
    .addColumn("debit_day", int, (c) => c.notNull())
    .addColumn("first_period", text, (c) => c.notNull())
    .addColumn("discount_kind", text, (c) => c.notNull().defaultTo(""))
    .addColumn("discount_value", int, (c) => c.notNull().defaultTo(0))
    .addColumn("discount_periods", int, (c) => c.notNull().defaultTo(0))
    .addColumn("metadata_json", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("updated_at", text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("plans_by_merchant").on("plans").columns(["merchant_id", "created_at", "id"]).execute();
  await db.schema
    .createTable("plan_prices")
    .addColumn("plan_id", text, (c) => c.notNull().references("plans.id"))
    .addColumn("version", int, (c) => c.notNull())
    .addColumn("amount", int, (c) => c.notNull())
    .addColumn("from_period", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .addPrimaryKeyConstraint("plan_prices_pk", ["plan_id", "version"])
    .execute();
  await db.schema
    .createTable("subscriptions")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull().references("merchants.id"))
    .addColumn("customer_id", text, (c) => c.notNull().references("customers.id"))
    .addColumn("contract_id", text, (c) => c.notNull().references("contracts.id"))
    .addColumn("plan_id", text, (c) => c.notNull().references("plans.id"))
    .addColumn("amount", int)
    .addColumn("start_period", text, (c) => c.notNull())
    .addColumn("end_period", text)
    .addColumn("status", text, (c) => c.notNull())
    .addColumn("cancel_at_period_end", int, (c) => c.notNull().defaultTo(0))
    .addColumn("end_reason", text)
    .addColumn("next_period", text)
    .addColumn("next_debit_date", text)
    .addColumn("last_period", text)
    .addColumn("description", text, (c) => c.notNull())
    .addColumn("metadata_json", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("updated_at", text, (c) => c.notNull())
    .addColumn("ended_at", text)
    .execute();
  // The cycle finds each debit date's active subscriptions, a page at a time by id.
  await db.schema
    .createIndex("subscriptions_due")
    .on("subscriptions")
    .columns(["status", "next_debit_date", "id"])
    .execute();
  await db.schema
    .createIndex("subscriptions_by_merchant")
    .on("subscriptions")
    .columns(["merchant_id", "created_at", "id"])
    .execute();
  await db.schema.createIndex("subscriptions_by_contract").on("subscriptions").column("contract_id").execute();
  await db.schema.createIndex("subscriptions_by_customer").on("subscriptions").column("customer_id").execute();
  await db.schema.createIndex("subscriptions_by_plan").on("subscriptions").column("plan_id").execute();
  await db.schema
    .createTable("subscription_periods")
    .addColumn("subscription_id", text, (c) => c.notNull().references("subscriptions.id"))
    .addColumn("period", text, (c) => c.notNull())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("plan_id", text, (c) => c.notNull())
    .addColumn("number", int, (c) => c.notNull())
    .addColumn("debit_date", text, (c) => c.notNull())
    .addColumn("price_version", int, (c) => c.notNull())
    .addColumn("initial_amount", int, (c) => c.notNull())
    .addColumn("discount", int, (c) => c.notNull())
    .addColumn("final_amount", int, (c) => c.notNull())
    .addColumn("charge_id", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .addPrimaryKeyConstraint("subscription_periods_pk", ["subscription_id", "period"])
    .execute();
  // A price change asks whether any period of the plan from a month on is charged.
  await db.schema
    .createIndex("subscription_periods_by_plan")
    .on("subscription_periods")
    .columns(["plan_id", "period"])
    .execute();
  await db.schema
    .createTable("subscription_attempts")
    .addColumn("subscription_id", text, (c) => c.notNull())
    .addColumn("period", text, (c) => c.notNull())
    .addColumn("attempt", int, (c) => c.notNull())
    .addColumn("charge_id", text, (c) => c.notNull().unique().references("charges.id"))
    .addColumn("debit_date", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .addPrimaryKeyConstraint("subscription_attempts_pk", ["subscription_id", "period", "attempt"])
    .addForeignKeyConstraint("subscription_attempts_period", ["subscription_id", "period"], "subscription_periods", [
      "subscription_id",
      "period",
    ])
    .execute();
}
