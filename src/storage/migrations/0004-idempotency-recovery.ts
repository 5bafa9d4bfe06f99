import type { Kysely } from "kysely";

/**
 * Idempotency keys learn two things (docs/guide/idempotency.md): how long an in-flight claim is held
 * (`lease_until`, renewed while the first request runs; a lapsed lease means its process died
 * and the next attempt takes the key over), and what the first attempt created (`resource_id`,
 * written in the flow's own transaction, so a takeover resumes it instead of creating another).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("idempotency_keys").addColumn("lease_until", "text").execute();
  await db.schema
    .alterTable("idempotency_keys")
    .addColumn("resource_id", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema.createIndex("idempotency_keys_expiry").on("idempotency_keys").column("expires_at").execute();
}
