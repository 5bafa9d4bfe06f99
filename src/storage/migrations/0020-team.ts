import { PostgresAdapter, type Kysely } from "kysely";

/**
 * A merchant's team (docs/guide/dashboard.md#the-team): each dashboard user has a role (every user
 * before this migration was the merchant's only user, and becomes its owner), single-use links that
 * invite a user or let one set a new password, and the audit log of what people did
 * (docs/guide/dashboard.md#the-audit-log).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const text = "text" as const;
  const int = "integer" as const;
  const autoId = db.getExecutor().adapter instanceof PostgresAdapter ? ("bigserial" as const) : int;

  await db.schema
    .alterTable("dashboard_users")
    .addColumn("role", text, (c) => c.notNull().defaultTo("owner"))
    .execute();
  // 1: the user must enrol TOTP before anything else (invited users; after an owner reset their TOTP).
  await db.schema
    .alterTable("dashboard_users")
    .addColumn("totp_setup_required", int, (c) => c.notNull().defaultTo(0))
    .execute();
  // A removed user keeps its row (the audit log and CSV batches name it) but can never sign in again.
  await db.schema.alterTable("dashboard_users").addColumn("removed_at", text).execute();
  await db.schema.createIndex("dashboard_users_merchant").on("dashboard_users").column("merchant_id").execute();

  await db.schema
    .createTable("dashboard_invitations")
    // SHA-256 of the link's token: the link itself is shown once, to the owner who made it.
    .addColumn("token_hash", text, (c) => c.primaryKey())
    .addColumn("id", text, (c) => c.notNull().unique())
    .addColumn("merchant_id", text, (c) => c.notNull().references("merchants.id"))
    // invite (a new user) | password_reset (an existing user's new password)
    .addColumn("purpose", text, (c) => c.notNull())
    .addColumn("email", text, (c) => c.notNull())
    .addColumn("role", text, (c) => c.notNull())
    // password_reset: the user whose password it sets
    .addColumn("user_id", text)
    .addColumn("created_by", text, (c) => c.notNull())
    .addColumn("expires_at", text, (c) => c.notNull())
    .addColumn("used_at", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("dashboard_invitations_merchant")
    .on("dashboard_invitations")
    .columns(["merchant_id", "created_at"])
    .execute();

  await db.schema
    .createTable("audit_log")
    // The order entries were written in (several in one millisecond keep their order).
    .addColumn("seq", autoId, (c) => c.primaryKey())
    .addColumn("id", text, (c) => c.notNull().unique())
    .addColumn("merchant_id", text, (c) => c.notNull().references("merchants.id"))
    .addColumn("at", text, (c) => c.notNull())
    // The person: their user id (empty for a failed sign-in of no known user) and e-mail at the time.
    .addColumn("user_id", text, (c) => c.notNull())
    .addColumn("email", text, (c) => c.notNull())
    .addColumn("action", text, (c) => c.notNull())
    // What it was done to (a charge, key, user, batch id), and its particulars as JSON.
    .addColumn("target", text, (c) => c.notNull())
    .addColumn("details_json", text, (c) => c.notNull())
    .addColumn("client_address", text, (c) => c.notNull())
    .addColumn("user_agent", text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("audit_log_merchant_at").on("audit_log").columns(["merchant_id", "at", "seq"]).execute();
}
