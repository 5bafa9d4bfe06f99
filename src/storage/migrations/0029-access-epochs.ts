import type { Kysely } from "kysely";

/**
 * Access that ends ends everywhere at once (docs/reference/security.md#access-that-ends): each
 * dashboard user has an access epoch, moved on by removal, a password or TOTP reset and a role
 * change in the transaction of the change; a session and a pending second step carry the epoch
 * they began under and count only while it is the user's. API keys say which user and session
 * made them. The customer app's sign-in codes wait for their mail in an outbox of their own
 * (the code sealed), sent by a job whatever the e-mail.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const text = "text" as const;
  const epoch = (table: string, column: string) =>
    db.schema
      .alterTable(table)
      .addColumn(column, "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  await epoch("dashboard_users", "access_epoch");
  await epoch("dashboard_sessions", "user_epoch");
  await epoch("sign_in_challenges", "user_epoch");
  await db.schema.alterTable("api_keys").addColumn("created_by_user_id", text).execute();
  await db.schema.alterTable("api_keys").addColumn("created_in_session", text).execute();

  await db.schema
    .createTable("sign_in_code_mail")
    // The one_time_codes row the message carries; the code itself sealed until it is sent.
    .addColumn("code_id", text, (c) => c.primaryKey())
    .addColumn("email_normalized", text, (c) => c.notNull())
    .addColumn("code_sealed", text, (c) => c.notNull())
    .addColumn("expires_at", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .execute();
}
