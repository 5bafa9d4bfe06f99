import { sql, type Kysely } from "kysely";
import { jstDayStart, jstMonthStart } from "../../domain/jst.js";
import { reversalReference } from "../../domain/ledger-reference.js";

/** The suffix of a reversal's ledger reference. */
const reversal = reversalReference("");

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
  // A charge's refunds are numbered in the order they were accepted and read a page at a time in
  // that order (before: by created_at, whose ties had no order).
  await db.schema
    .alterTable("refunds")
    .addColumn("seq", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await numberRefunds(db);
  await db.schema.createIndex("refunds_charge_seq").on("refunds").columns(["charge_id", "seq"]).unique().execute();
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

/** Numbers every charge's refunds 1, 2, 3… by (created_at, id). */
async function numberRefunds(db: Kysely<any>): Promise<void> {
  await sql`update refunds set seq = (select count(*) from refunds earlier where earlier.charge_id = refunds.charge_id
    and (earlier.created_at < refunds.created_at or (earlier.created_at = refunds.created_at and earlier.id <= refunds.id)))`.execute(
    db,
  );
}

/** Sets every debited account's running totals from its ledger (the JST day and month of its latest debit). */
async function backfillDebitTotals(db: Kysely<any>): Promise<void> {
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
        // What was really taken: neither a reversal nor a debit that was reversed.
        .where("reference", "not like", `%${reversal}`)
        .where(
          sql<boolean>`not exists (select 1 from bank_ledger reversed where reversed.reference = bank_ledger.reference || ${reversal})`,
        )
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
