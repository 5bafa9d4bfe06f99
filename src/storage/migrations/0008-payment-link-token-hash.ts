import type { Kysely } from "kysely";
import { hashLinkToken } from "../../domain/payment-link.js";

/**
 * Payment-link tokens are stored hashed, as session tokens are (docs/reference/security.md): the
 * column becomes `token_hash` and every existing token is replaced by its hash, so the links
 * already sent keep working (they are looked up by the hash of the token in their URL).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("payment_links").renameColumn("token", "token_hash").execute();
  const rows: { id: string; token_hash: string }[] = await db
    .selectFrom("payment_links")
    .select(["id", "token_hash"])
    .execute();
  for (const row of rows) {
    await db
      .updateTable("payment_links")
      .set({ token_hash: hashLinkToken(row.token_hash) })
      .where("id", "=", row.id)
      .execute();
  }
}
