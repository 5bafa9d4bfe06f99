import type { Kysely } from "kysely";

/**
 * Sign-in hardening (docs/reference/security.md): attempt counters keyed by e-mail (known or
 * not) and by user for the TOTP step, the pending second step of a sign-in, single-use recovery
 * codes, the session's last TOTP check (step-up), the CSRF token kept only as a hash, and the
 * merchant's "every user needs TOTP" setting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const text = "text" as const;
  const int = "integer" as const;

  await db.schema
    .createTable("sign_in_attempts")
    // "email:<normalized e-mail>" (password step, whether or not a user has it) or "totp:<user id>".
    .addColumn("key", text, (c) => c.primaryKey())
    // Attempts reserved (counted before they are checked) in the current run.
    .addColumn("failures", int, (c) => c.notNull().defaultTo(0))
    .addColumn("locked_until", text)
    .addColumn("last_attempt_at", text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sign_in_attempts_last").on("sign_in_attempts").column("last_attempt_at").execute();

  await db.schema
    .createTable("sign_in_challenges")
    // SHA-256 of the token SignIn hands out when the user has TOTP: the second step quotes it.
    .addColumn("id_hash", text, (c) => c.primaryKey())
    .addColumn("user_id", text, (c) => c.notNull().references("dashboard_users.id"))
    .addColumn("expires_at", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("recovery_codes")
    .addColumn("user_id", text, (c) => c.notNull().references("dashboard_users.id"))
    // SHA-256 of the code as shown (lower case, without dashes).
    .addColumn("code_hash", text, (c) => c.notNull())
    .addColumn("used_at", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .addPrimaryKeyConstraint("recovery_codes_pk", ["user_id", "code_hash"])
    .execute();

  // Sessions signed in before the upgrade kept their CSRF token in clear: they end.
  await db.deleteFrom("dashboard_sessions" as never).execute();
  await db.schema.alterTable("dashboard_sessions").renameColumn("csrf_token", "csrf_hash").execute();
  // When the session's user last gave a TOTP code (or recovery code): sensitive calls need one
  // from the last 5 minutes.
  await db.schema.alterTable("dashboard_sessions").addColumn("totp_verified_at", text).execute();

  await db.schema
    .alterTable("merchants")
    .addColumn("dashboard_totp_required", int, (c) => c.notNull().defaultTo(0))
    .execute();
}
