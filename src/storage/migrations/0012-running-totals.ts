import { sql, type Kysely } from "kysely";
import { jstDayStart, jstMonthStart } from "../../domain/jst.js";

/**
 * History independence (docs/operations/benchmark.md): each account keeps the running totals of
 * its debits on its row (so a debit no longer sums the month's ledger), backfilled here from the
 * ledger: the sums of the JST day and month of each account's latest debit. And the indexes the
 * hot queries' plans use (test/api/query-plans.test.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("bank_accounts")
    .addColumn("debits_day_start", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema
    .alterTable("bank_accounts")
    .addColumn("debits_today", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("bank_accounts")
    .addColumn("debits_month_start", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema
    .alterTable("bank_accounts")
    .addColumn("debits_this_month", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("bank_ledger_customer").on("bank_ledger").column("customer_id").execute();
  // A charge's refunds are read a page at a time in (created_at, id) order.
  await db.schema
    .createIndex("refunds_charge_created")
    .on("refunds")
    .columns(["charge_id", "created_at", "id"])
    .execute();
  await db.schema.dropIndex("refunds_charge").execute();
  // The lists' keyset order in full, so a page is read off the index instead of sorting every row
  // of the merchant that shares a created_at.
  await db.schema
    .createIndex("events_merchant_created_seq")
    .on("events")
    .columns(["merchant_id", "created_at", "seq"])
    .execute();
  await db.schema.dropIndex("events_merchant_created").execute();
  await db.schema
    .createIndex("customers_merchant_created_id")
    .on("customers")
    .columns(["merchant_id", "created_at", "id"])
    .execute();
  await db.schema.dropIndex("customers_merchant_created").execute();
  await backfillDebitTotals(db);
}

/** Sets every debited account's running totals from its ledger (the JST day and month of its latest debit). */
export async function backfillDebitTotals(db: Kysely<any>): Promise<void> {
  const latest = await db
    .selectFrom("bank_ledger")
    .select(["customer_id", (eb) => eb.fn.max("at").as("at")])
    .where("amount", "<", 0)
    .groupBy("customer_id")
    .execute();
  for (const { customer_id: customerId, at } of latest) {
    const dayStart = jstDayStart(new Date(at)).toISOString();
    const monthStart = jstMonthStart(new Date(at)).toISOString();
    const debitedSince = async (since: string) => {
      const row = await db
        .selectFrom("bank_ledger")
        .select(sql<number>`coalesce(-sum(amount), 0)`.as("total"))
        .where("customer_id", "=", customerId)
        .where("amount", "<", 0)
        .where("at", ">=", since)
        .executeTakeFirstOrThrow();
      return Number(row.total);
    };
    await db
      .updateTable("bank_accounts")
      .set({
        debits_day_start: dayStart,
        debits_today: await debitedSince(dayStart),
        debits_month_start: monthStart,
        debits_this_month: await debitedSince(monthStart),
      })
      .where("customer_id", "=", customerId)
      .execute();
  }
}
