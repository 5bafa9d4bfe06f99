import { SqliteAdapter, sql, type Kysely } from "kysely";
import { newId } from "../../domain/ids.js";

/**
 * A bank account per approved account, not per customer (docs/reference/invariants.md): each
 * account a customer approves is its own row (bac-*), with its own balance, settings and limits
 * (the running totals of 0014); a charge records the account it was paid from, a contract the
 * account it was approved with, and each ledger row the account it booked on. Until now a customer
 * had one row: it becomes that customer's first account, and every charge, contract and booking
 * of the customer points at it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const text = "text" as const;
  const int = "integer" as const;
  const money = "bigint" as const;
  // SQLite: the old table's pages (account details in clear, sealed by 0017) are zeroed when dropped.
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) await sql`pragma secure_delete = on`.execute(db);
  // SQLite cannot change a primary key in place: a new table, filled, then given the old name.
  await db.schema
    .createTable("bank_accounts_by_id")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("customer_id", text, (c) => c.notNull())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("bank_code", text, (c) => c.notNull())
    .addColumn("branch_code", text, (c) => c.notNull())
    .addColumn("account_number", text, (c) => c.notNull())
    .addColumn("account_holder", text, (c) => c.notNull())
    .addColumn("balance", money, (c) => c.notNull())
    .addColumn("quota", money, (c) => c.notNull().defaultTo(0))
    .addColumn("under_maintenance", int, (c) => c.notNull().defaultTo(0))
    .addColumn("maintenance_until", text)
    .addColumn("reject", int, (c) => c.notNull().defaultTo(0))
    .addColumn("latency_ms", int, (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("debits_day_start", text, (c) => c.notNull().defaultTo(""))
    .addColumn("debits_today", money, (c) => c.notNull().defaultTo(0))
    .addColumn("debits_month_start", text, (c) => c.notNull().defaultTo(""))
    .addColumn("debits_this_month", money, (c) => c.notNull().defaultTo(0))
    .execute();
  for (const row of await db.selectFrom("bank_accounts").selectAll().execute())
    await db
      .insertInto("bank_accounts_by_id")
      .values({ ...row, id: newId("bac") })
      .execute();

  for (const table of ["charges", "contracts"])
    await db.schema.alterTable(table).addColumn("bank_account_id", text).execute();
  await db.schema.alterTable("bank_ledger").addColumn("account_id", text).execute();
  const accountOfCustomer = (column: string) =>
    sql`(select id from bank_accounts_by_id where bank_accounts_by_id.customer_id = ${sql.ref(column)})`;
  await db
    .updateTable("charges")
    .set({ bank_account_id: accountOfCustomer("charges.customer_id") })
    .execute();
  await db
    .updateTable("contracts")
    .set({ bank_account_id: accountOfCustomer("contracts.customer_id") })
    .execute();
  await db
    .updateTable("bank_ledger")
    .set({ account_id: accountOfCustomer("bank_ledger.customer_id") })
    .execute();

  await db.schema.dropTable("bank_accounts").execute();
  await db.schema.alterTable("bank_accounts_by_id").renameTo("bank_accounts").execute();
  await db.schema.createIndex("bank_accounts_customer").on("bank_accounts").column("customer_id").execute();
  await db.schema.createIndex("bank_ledger_account").on("bank_ledger").column("account_id").execute();
  // Whether anything uses an account yet (storage/bank-accounts.ts openBankAccount), without a scan.
  await db.schema.createIndex("charges_bank_account").on("charges").column("bank_account_id").execute();
  await db.schema.createIndex("contracts_bank_account").on("contracts").column("bank_account_id").execute();
  if (sqlite) await sql`pragma secure_delete = off`.execute(db);
}
