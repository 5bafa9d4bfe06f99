import type { Kysely } from "kysely";

/**
 * The merchant dashboard (docs/guide/dashboard.md): its users (scrypt password hashes, TOTP),
 * their sessions (the cookie's id stored hashed), and CSV batches with their rows and the TOTP
 * challenges that confirm them (docs/guide/csv-batches.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const text = "text" as const;
  const int = "integer" as const;

  await db.schema
    .createTable("dashboard_users")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull().references("merchants.id"))
    .addColumn("email", text, (c) => c.notNull())
    // Trimmed, lower-cased: one user per e-mail across merchants (sign-in asks for no merchant).
    .addColumn("email_normalized", text, (c) => c.notNull().unique())
    .addColumn("password_hash", text, (c) => c.notNull())
    .addColumn("failed_sign_ins", int, (c) => c.notNull().defaultTo(0))
    .addColumn("sign_in_locked_until", text)
    // Base32; set at enrolment, confirmed by a first code (totp_enabled = 1).
    .addColumn("totp_secret", text, (c) => c.notNull().defaultTo(""))
    .addColumn("totp_enabled", int, (c) => c.notNull().defaultTo(0))
    // The time-step of the last accepted code: a code of that step or before is never accepted again.
    .addColumn("totp_last_step", int, (c) => c.notNull().defaultTo(0))
    // Consecutive wrong codes at CSV confirmation; 3 lock confirmation until totp_locked_until.
    .addColumn("totp_failures", int, (c) => c.notNull().defaultTo(0))
    .addColumn("totp_locked_until", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("updated_at", text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("dashboard_sessions")
    // SHA-256 of the cookie's value: a database leak does not hand out sessions.
    .addColumn("id_hash", text, (c) => c.primaryKey())
    .addColumn("user_id", text, (c) => c.notNull().references("dashboard_users.id"))
    .addColumn("csrf_token", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("idle_expires_at", text, (c) => c.notNull())
    .addColumn("absolute_expires_at", text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("dashboard_sessions_user").on("dashboard_sessions").column("user_id").execute();

  await db.schema
    .createTable("csv_batches")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull().references("merchants.id"))
    .addColumn("user_id", text, (c) => c.notNull().references("dashboard_users.id"))
    .addColumn("file_name", text, (c) => c.notNull())
    // SHA-256 of the parsed header and rows: what the TOTP challenge is bound to, and the seed of
    // each row's idempotency key (the same file uploaded again charges nobody twice).
    .addColumn("content_hash", text, (c) => c.notNull())
    .addColumn("header_json", text, (c) => c.notNull())
    .addColumn("row_count", int, (c) => c.notNull())
    // uploaded → running (confirmed); "completed" is read from the rows.
    .addColumn("status", text, (c) => c.notNull())
    .addColumn("expires_at", text, (c) => c.notNull())
    .addColumn("confirmed_at", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("csv_batches_merchant_created")
    .on("csv_batches")
    .columns(["merchant_id", "created_at"])
    .execute();

  await db.schema
    .createTable("csv_rows")
    .addColumn("batch_id", text, (c) => c.notNull().references("csv_batches.id"))
    // 1-based, data rows only (the header is row 0).
    .addColumn("row_number", int, (c) => c.notNull())
    // The cells exactly as uploaded, for the result CSV.
    .addColumn("cells_json", text, (c) => c.notNull())
    // invalid | queued | submitted | failed (see domain/csv-batch.ts)
    .addColumn("state", text, (c) => c.notNull())
    .addColumn("reason", text, (c) => c.notNull().defaultTo(""))
    .addColumn("customer_id", text)
    .addColumn("idempotency_key", text, (c) => c.notNull().defaultTo(""))
    .addColumn("charge_id", text)
    .addColumn("updated_at", text, (c) => c.notNull())
    .addPrimaryKeyConstraint("csv_rows_pk", ["batch_id", "row_number"])
    .execute();

  // The dashboard's charge list: a merchant's charges, newest first.
  await db.schema
    .createIndex("charges_merchant_created")
    .on("charges")
    .columns(["merchant_id", "created_at"])
    .execute();

  await db.schema
    .createTable("totp_challenges")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("user_id", text, (c) => c.notNull().references("dashboard_users.id"))
    .addColumn("batch_id", text, (c) => c.notNull().references("csv_batches.id"))
    .addColumn("content_hash", text, (c) => c.notNull())
    .addColumn("failures", int, (c) => c.notNull().defaultTo(0))
    .addColumn("expires_at", text, (c) => c.notNull())
    .addColumn("used_at", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .execute();
}
