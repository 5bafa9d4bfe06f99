import type { Kysely } from "kysely";

/**
 * The customer app (docs/guide/customer-app.md): its sessions (bound to an e-mail, kept as hashes
 * like the dashboard's), customers' stop requests, and the indexes that find a customer's records
 * by e-mail across merchants and their charges newest first. Sign-in codes live in one_time_codes
 * (owner `app:<e-mail>` in payment_link_id).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const text = "text" as const;

  await db.schema
    .createTable("customer_app_sessions")
    // SHA-256 of the cookie value; the CSRF token, too, only as its hash.
    .addColumn("id_hash", text, (c) => c.primaryKey())
    .addColumn("email_normalized", text, (c) => c.notNull())
    .addColumn("csrf_hash", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("idle_expires_at", text, (c) => c.notNull())
    .addColumn("absolute_expires_at", text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("customer_app_sessions_expiry")
    .on("customer_app_sessions")
    .column("absolute_expires_at")
    .execute();

  await db.schema
    .createTable("stop_requests")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("customer_id", text, (c) => c.notNull())
    // One request per contract: asking again answers the first.
    .addColumn("contract_id", text, (c) => c.notNull().unique())
    .addColumn("reason", text, (c) => c.notNull())
    .addColumn("requested_at", text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("stop_requests_customer")
    .on("stop_requests")
    .columns(["merchant_id", "customer_id"])
    .execute();

  await db.schema
    .createIndex("customers_email")
    .on("customers")
    .columns(["email_normalized", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("charges_customer_created")
    .on("charges")
    .columns(["customer_id", "created_at", "id"])
    .execute();
}
