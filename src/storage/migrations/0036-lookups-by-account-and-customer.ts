import { type Kysely, sql } from "kysely";

/**
 * Two look-ups that read every row of a merchant to find a few
 * (docs/operations/benchmark.md#history-independence):
 * - whether a merchant's mandate for an account is registered at the bank reads the account's
 *   answered debits; by `(state, merchant_id, …)` that was every answered debit of the merchant,
 *   on every debit it accepts and on every page of a debit date (a month's 100,000 answers read
 *   again for each page of the next month's);
 * - the dashboard's payers of a page of charges read their customers' mandates, which had no
 *   index by customer (a scan of every mandate).
 * And the simulated bank's account found by its numbers, oldest first, is read in that order from
 * its index instead of sorted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Answered debits only (a result code is written when, and only when, a debit is answered): a
  // debit enters the index when its result is applied, in the result file's one transaction, not
  // while a debit date's pages are charged, where an entry at a random place per debit (the key is
  // an HMAC) cost a written page each (docs/operations/benchmark.md#debit-day). Latest last, as
  // the look-up reads them.
  await db.schema
    .createIndex("zengin_debits_answered_account")
    .on("zengin_debits")
    .columns(["merchant_id", "account_key", "date", "updated_at"])
    .where(sql<boolean>`result_code is not null`)
    .execute();
  await db.schema.dropIndex("bank_accounts_merchant_key").execute();
  await db.schema
    .createIndex("bank_accounts_merchant_key")
    .on("bank_accounts")
    .columns(["merchant_id", "account_key", "created_at"])
    .execute();
  await db.schema.createIndex("mandates_customer").on("mandates").columns(["customer_id", "accepted_at"]).execute();
}
