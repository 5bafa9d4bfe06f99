import type { Kysely } from "kysely";

/**
 * The link's token, sealed with SECRETS_KEY beside its hash: a request retried after a crash is
 * answered with the link its first attempt created, URL included (docs/guide/idempotency.md), while
 * the database alone still gives no usable token (docs/reference/security.md). Links created before
 * this migration have none; their retries after a crash cannot rebuild the URL.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("payment_links").addColumn("token_sealed", "text").execute();
}
