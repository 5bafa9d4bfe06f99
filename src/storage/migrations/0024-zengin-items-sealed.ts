import { SqliteAdapter, sql, type Kysely } from "kysely";
import { accountIdentity, serialiseAccount, type BankAccountDetails } from "../../domain/bank-account.js";
import { keyedHash, seal } from "../sealed.js";

const clearColumns = ["bank_code", "branch_code", "account_type", "account_number", "holder"];

/**
 * The Zengin items sealed at rest (docs/reference/security.md#bank-accounts), as 0017 sealed the
 * approved accounts: a debit's or transfer's bank, branch, 預金種目, number and holder kana are
 * kept only in `account_sealed` (SECRETS_KEY), with `account_key`, the keyed hash of which
 * account it is (bank, branch, number), to find a merchant's earlier debits of it. The clear
 * columns are dropped.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // SQLite: the pages the clear columns leave behind are zeroed, not left in the file's free list.
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) await sql`pragma secure_delete = on`.execute(db);
  for (const table of ["zengin_debits", "zengin_transfers"]) {
    await db.schema
      .alterTable(table)
      .addColumn("account_sealed", "text", (c) => c.notNull().defaultTo(""))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn("account_key", "text", (c) => c.notNull().defaultTo(""))
      .execute();
    for (const row of await db
      .selectFrom(table)
      .select(["reference", ...clearColumns])
      .execute()) {
      const account = detailsOf(row);
      await db
        .updateTable(table)
        .set({ account_sealed: seal(serialiseAccount(account)), account_key: keyedHash(accountIdentity(account)) })
        .where("reference", "=", row.reference)
        .execute();
    }
    for (const column of clearColumns) await db.schema.alterTable(table).dropColumn(column).execute();
  }
  if (sqlite) await sql`pragma secure_delete = off`.execute(db);
}

/** The clear columns as they were: the account as the request file carries it. */
function detailsOf(row: Record<string, string | number>): BankAccountDetails {
  return {
    bankCode: String(row.bank_code),
    branchCode: String(row.branch_code),
    accountType: Number(row.account_type),
    accountNumber: String(row.account_number),
    accountHolder: String(row.holder),
  };
}
