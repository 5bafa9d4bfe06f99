import { BankAccountType } from "../../../gen/payments/v1/enums_pb.js";
import { SqliteAdapter, sql, type Kysely } from "kysely";
import { accountIdentity, serialiseAccount, type BankAccountDetails } from "../../domain/bank-account.js";
import { keyedHash, seal } from "../sealed.js";

/**
 * The bank account sealed at rest (docs/reference/security.md#bank-accounts): the accounts
 * approved (bank_accounts) and those held on a link until approval (link_bank_accounts) keep bank,
 * branch, type, number and holder only in `account_sealed` (SECRETS_KEY); an approved account is
 * found again by `account_key`, a keyed hash of its bank, branch and number. The clear columns are
 * dropped. The simulated bank's wrong-entry counters are keyed by that keyed hash too.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // SQLite: the pages the clear columns leave behind are zeroed, not left in the file's free list.
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) await sql`pragma secure_delete = on`.execute(db);
  for (const table of ["bank_accounts", "link_bank_accounts"])
    await db.schema
      .alterTable(table)
      .addColumn("account_sealed", "text", (c) => c.notNull().defaultTo(""))
      .execute();
  await db.schema
    .alterTable("bank_accounts")
    .addColumn("account_key", "text", (c) => c.notNull().defaultTo(""))
    .execute();

  for (const row of await db.selectFrom("bank_accounts").selectAll().execute()) {
    const details = detailsOf(row);
    await db
      .updateTable("bank_accounts")
      .set({ account_sealed: seal(serialiseAccount(details)), account_key: keyedHash(accountIdentity(details)) })
      .where("id", "=", row.id)
      .execute();
  }
  for (const row of await db.selectFrom("link_bank_accounts").selectAll().execute())
    await db
      .updateTable("link_bank_accounts")
      .set({ account_sealed: seal(serialiseAccount(detailsOf(row))) })
      .where("link_id", "=", row.link_id)
      .execute();

  for (const table of ["bank_accounts", "link_bank_accounts"])
    for (const column of ["bank_code", "branch_code", "account_number", "account_holder"])
      await db.schema.alterTable(table).dropColumn(column).execute();
  await db.schema
    .createIndex("bank_accounts_merchant_key")
    .on("bank_accounts")
    .columns(["merchant_id", "account_key"])
    .execute();

  for (const row of await db.selectFrom("bank_authentication_failures").selectAll().execute())
    await db
      .updateTable("bank_authentication_failures")
      .set({ account_key: keyedHash(row.account_key) })
      .where("account_key", "=", row.account_key)
      .where("day", "=", row.day)
      .execute();
  if (sqlite) await sql`pragma secure_delete = off`.execute(db);
}

/** The clear columns as they were: linked accounts were ordinary (普通) accounts. */
function detailsOf(row: Record<string, string>): BankAccountDetails {
  return {
    bankCode: row.bank_code,
    branchCode: row.branch_code,
    accountType: BankAccountType.ORDINARY,
    accountNumber: row.account_number,
    accountHolder: row.account_holder,
  };
}
