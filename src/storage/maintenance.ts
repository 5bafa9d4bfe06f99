import type { Kysely } from "kysely";
import type { Database } from "./schema.js";
import { accountIdentity, parseAccount } from "../domain/bank-account.js";
import { keyedHash, seal, unseal } from "./sealed.js";
import { SqliteDatabase } from "./sqlite-driver.js";

/**
 * An online backup of the SQLite file (SQLite's backup API, page by page, consistent while the
 * server keeps writing): copying the file alone would miss what is still in its WAL.
 */
export async function backupSqlite(
  databaseUrl: string,
  destination: string,
): Promise<{ pages: number; integrity: string }> {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error("backup is for SQLite; back PostgreSQL up with pg_dump");
  const source = new SqliteDatabase(databaseUrl.replace(/^file:/, ""), { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await source.backup(destination);
    const copy = new SqliteDatabase(destination, { readonly: true });
    try {
      return { pages: totalPages, integrity: copy.pragma("integrity_check", { simple: true }) as string };
    } finally {
      copy.close();
    }
  } finally {
    source.close();
  }
}

/** Seals every stored secret again under the current SECRETS_KEY: the last step of a key rotation. */
export async function resealSecrets(
  db: Kysely<Database>,
): Promise<{ merchants: number; users: number; mailbox: number; paymentLinks: number; accounts: number }> {
  return db.transaction().execute(async (trx) => {
    const merchants = await trx.selectFrom("merchants").select(["id", "webhook_secret"]).execute();
    for (const row of merchants)
      await trx
        .updateTable("merchants")
        .set({ webhook_secret: seal(unseal(row.webhook_secret)) })
        .where("id", "=", row.id)
        .execute();
    const users = await trx
      .selectFrom("dashboard_users")
      .select(["id", "totp_secret"])
      .where("totp_secret", "!=", "")
      .execute();
    for (const row of users)
      await trx
        .updateTable("dashboard_users")
        .set({ totp_secret: seal(unseal(row.totp_secret)) })
        .where("id", "=", row.id)
        .execute();
    const mails = await trx.selectFrom("mailbox").select(["id", "body", "code"]).execute();
    for (const row of mails)
      await trx
        .updateTable("mailbox")
        .set({ body: seal(unseal(row.body)), code: seal(unseal(row.code)) })
        .where("id", "=", row.id)
        .execute();
    // Customer-app sign-in codes still waiting for their e-mail (counted with the mailbox).
    const outbox = await trx.selectFrom("sign_in_code_mail").select(["code_id", "code_sealed"]).execute();
    for (const row of outbox)
      await trx
        .updateTable("sign_in_code_mail")
        .set({ code_sealed: seal(unseal(row.code_sealed)) })
        .where("code_id", "=", row.code_id)
        .execute();
    // Bank accounts chosen on payment links (with their return address, which holds the link's
    // token) and kept with mandates (the sealed column only: the evidence is never edited).
    const verifications = await trx
      .selectFrom("account_verifications")
      .select(["id", "account_sealed", "return_url"])
      .execute();
    for (const row of verifications)
      await trx
        .updateTable("account_verifications")
        .set({ account_sealed: seal(unseal(row.account_sealed)), return_url: seal(unseal(row.return_url)) })
        .where("id", "=", row.id)
        .execute();
    const mandates = await trx.selectFrom("mandates").select(["id", "account_sealed"]).execute();
    for (const row of mandates)
      await trx
        .updateTable("mandates")
        .set({ account_sealed: seal(unseal(row.account_sealed)) })
        .where("id", "=", row.id)
        .execute();
    // Accounts approved and held on links, sealed again; an approved account's look-up hash is
    // recomputed under the new key.
    const approved = await trx.selectFrom("bank_accounts").select(["id", "account_sealed"]).execute();
    for (const row of approved) {
      const details = unseal(row.account_sealed);
      await trx
        .updateTable("bank_accounts")
        .set({ account_sealed: seal(details), account_key: keyedHash(accountIdentity(parseAccount(details))) })
        .where("id", "=", row.id)
        .execute();
    }
    const pending = await trx.selectFrom("link_bank_accounts").select(["link_id", "account_sealed"]).execute();
    for (const row of pending)
      await trx
        .updateTable("link_bank_accounts")
        .set({ account_sealed: seal(unseal(row.account_sealed)) })
        .where("link_id", "=", row.link_id)
        .execute();
    // Debits and transfers on their way through a Zengin file: sealed again, their look-up hash
    // recomputed under the new key.
    let zenginItems = 0;
    for (const table of ["zengin_debits", "zengin_transfers"] as const) {
      const items = await trx.selectFrom(table).select(["reference", "account_sealed"]).execute();
      for (const row of items) {
        const details = unseal(row.account_sealed);
        await trx
          .updateTable(table)
          .set({ account_sealed: seal(details), account_key: keyedHash(accountIdentity(parseAccount(details))) })
          .where("reference", "=", row.reference)
          .execute();
      }
      zenginItems += items.length;
    }
    const accounts = verifications.length + mandates.length + approved.length + pending.length + zenginItems;
    const links = await trx
      .selectFrom("payment_links")
      .select(["id", "token_sealed"])
      .where("token_sealed", "is not", null)
      .execute();
    for (const row of links)
      await trx
        .updateTable("payment_links")
        .set({ token_sealed: seal(unseal(row.token_sealed!)) })
        .where("id", "=", row.id)
        .execute();
    return {
      merchants: merchants.length,
      users: users.length,
      mailbox: mails.length + outbox.length,
      paymentLinks: links.length,
      accounts,
    };
  });
}
