import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * Direct-debit mandates (口座振替): the account a payment link chose and how its bank verified it
 * (account_verifications), the consent recorded at approval (mandates, never updated: a trigger
 * refuses it), and each merchant's support contact shown on the consent screen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const text = "text" as const;
  const int = "integer" as const;
  await db.schema
    .createTable("account_verifications")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("link_id", text, (c) => c.notNull())
    .addColumn("method", int, (c) => c.notNull())
    .addColumn("state_hash", text, (c) => c.notNull())
    .addColumn("return_url", text, (c) => c.notNull())
    .addColumn("account_sealed", text, (c) => c.notNull())
    .addColumn("account_hash", text, (c) => c.notNull())
    .addColumn("summary_json", text, (c) => c.notNull())
    .addColumn("status", text, (c) => c.notNull())
    .addColumn("failure", int, (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("expires_at", text, (c) => c.notNull())
    .addColumn("verified_at", text)
    // The simulated bank's side: the authorisation code it gave the customer (hash) and its use.
    .addColumn("code_hash", text)
    .addColumn("code_issued_at", text)
    .addColumn("code_used_at", text)
    .execute();
  await db.schema
    .createIndex("account_verifications_link")
    .on("account_verifications")
    .columns(["link_id", "created_at"])
    .execute();

  await db.schema
    .createTable("mandates")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("customer_id", text, (c) => c.notNull())
    .addColumn("contract_id", text, (c) => c.notNull())
    .addColumn("link_id", text, (c) => c.notNull().unique())
    .addColumn("verification_id", text, (c) => c.notNull())
    .addColumn("method", int, (c) => c.notNull())
    .addColumn("account_sealed", text, (c) => c.notNull())
    .addColumn("account_hash", text, (c) => c.notNull())
    .addColumn("summary_json", text, (c) => c.notNull())
    .addColumn("terms_version", text, (c) => c.notNull())
    .addColumn("accepted_at", text, (c) => c.notNull())
    .addColumn("client_address", text, (c) => c.notNull())
    .addColumn("user_agent", text, (c) => c.notNull())
    .addColumn("verified_at", text)
    .execute();
  await db.schema.createIndex("mandates_contract").on("mandates").columns(["contract_id", "accepted_at"]).execute();

  // Every column but the sealed account, which `furikomi secrets reseal` seals again under a new
  // key (same details: account_hash still proves them).
  const evidence = sql.raw(
    [
      "id",
      "merchant_id",
      "customer_id",
      "contract_id",
      "link_id",
      "verification_id",
      "method",
      "account_hash",
      "summary_json",
      "terms_version",
      "accepted_at",
      "client_address",
      "user_agent",
      "verified_at",
    ].join(", "),
  );
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create or replace function mandates_never_edited() returns trigger as $$
      begin raise exception 'a mandate is evidence: it is never edited'; end; $$ language plpgsql`.execute(db);
    await sql`create trigger mandates_no_update before update of ${evidence} on mandates
      for each row execute function mandates_never_edited()`.execute(db);
  } else {
    await sql`create trigger mandates_no_update before update of ${evidence} on mandates
      begin select raise(abort, 'a mandate is evidence: it is never edited'); end`.execute(db);
  }

  for (const column of ["support_email", "support_phone", "support_url"])
    await db.schema
      .alterTable("merchants")
      .addColumn(column, text, (c) => c.notNull().defaultTo(""))
      .execute();
}
