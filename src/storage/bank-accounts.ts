import type { Tx } from "./transactor.js";
import type { Kysely } from "kysely";
import type { BankAccountTable, BankLedgerTable, Database, LinkBankAccountTable } from "./schema.js";

/** Opens (or re-links) a simulated account for a customer. */
export async function upsertBankAccount(
  trx: Tx,
  account: Omit<BankAccountTable, "quota" | "under_maintenance" | "maintenance_until" | "reject" | "latency_ms">,
): Promise<void> {
  await trx
    .insertInto("bank_accounts")
    .values({ ...account, quota: 0, under_maintenance: 0, maintenance_until: null, reject: 0, latency_ms: 0 })
    .onConflict((oc) =>
      oc.column("customer_id").doUpdateSet({
        bank_code: account.bank_code,
        branch_code: account.branch_code,
        account_number: account.account_number,
        account_holder: account.account_holder,
      }),
    )
    .execute();
}

export async function findBankAccount(
  db: Kysely<Database>,
  merchantId: string,
  customerId: string,
): Promise<BankAccountTable | undefined> {
  return db
    .selectFrom("bank_accounts")
    .selectAll()
    .where("customer_id", "=", customerId)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
}

export async function ledgerOf(db: Kysely<Database>, customerId: string): Promise<Omit<BankLedgerTable, "id">[]> {
  return db
    .selectFrom("bank_ledger")
    .select(["customer_id", "reference", "amount", "balance_after", "at"])
    .where("customer_id", "=", customerId)
    .orderBy("id")
    .execute();
}

/** Holds the account given on a link's bank step (a repeated step replaces it). */
export async function savePendingBankAccount(trx: Tx, account: LinkBankAccountTable): Promise<void> {
  const { link_id, ...details } = account;
  await trx
    .insertInto("link_bank_accounts")
    .values(account)
    .onConflict((oc) => oc.column("link_id").doUpdateSet(details))
    .execute();
}

export async function findPendingBankAccount(trx: Tx, linkId: string): Promise<LinkBankAccountTable | undefined> {
  return trx.selectFrom("link_bank_accounts").selectAll().where("link_id", "=", linkId).executeTakeFirst();
}
