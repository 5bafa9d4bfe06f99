import { PostgresAdapter, sql, type Kysely } from "kysely";

/** The whole schema of the first release; later changes come as new numbered files. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const text = "text" as const;
  const int = "integer" as const;
  // An auto-numbered key: serial on PostgreSQL, the rowid alias on SQLite.
  const autoId = db.getExecutor().adapter instanceof PostgresAdapter ? ("serial" as const) : ("integer" as const);

  await db.schema
    .createTable("merchants")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("name", text, (c) => c.notNull())
    .addColumn("logo_url", text, (c) => c.notNull().defaultTo(""))
    .addColumn("webhook_url", text, (c) => c.notNull().defaultTo(""))
    .addColumn("webhook_secret", text, (c) => c.notNull())
    .addColumn("onboarding_complete", int, (c) => c.notNull().defaultTo(1))
    .addColumn("webhook_failing", int, (c) => c.notNull().defaultTo(0))
    .addColumn("webhook_failing_reason", text, (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull().references("merchants.id"))
    .addColumn("key_hash", text, (c) => c.notNull().unique())
    .addColumn("prefix", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("revoked_at", text)
    .execute();

  await db.schema
    .createTable("customers")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull().references("merchants.id"))
    .addColumn("email", text, (c) => c.notNull())
    .addColumn("email_normalized", text, (c) => c.notNull())
    .addColumn("name", text, (c) => c.notNull().defaultTo(""))
    .addColumn("katakana_last_name", text, (c) => c.notNull().defaultTo(""))
    .addColumn("katakana_first_name", text, (c) => c.notNull().defaultTo(""))
    .addColumn("address", text, (c) => c.notNull().defaultTo(""))
    .addColumn("birth_date", text, (c) => c.notNull().defaultTo(""))
    .addColumn("gender", text, (c) => c.notNull().defaultTo(""))
    .addColumn("metadata_json", text, (c) => c.notNull().defaultTo("{}"))
    .addColumn("kyc_status", int, (c) => c.notNull())
    .addColumn("kyc_rejection_reason", text, (c) => c.notNull().defaultTo(""))
    .addColumn("payment_status", int, (c) => c.notNull())
    .addColumn("link_initialized", int, (c) => c.notNull().defaultTo(0))
    .addColumn("activated", int, (c) => c.notNull().defaultTo(0))
    .addColumn("deleted_at", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("updated_at", text, (c) => c.notNull())
    .execute();
  // One live customer per e-mail and merchant (docs/reference/contract.md#email-reuse).
  await sql`create unique index customers_merchant_email on customers (merchant_id, email_normalized) where deleted_at is null`.execute(
    db,
  );
  await db.schema
    .createIndex("customers_merchant_created")
    .on("customers")
    .columns(["merchant_id", "created_at"])
    .execute();

  await db.schema
    .createTable("contracts")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("customer_id", text, (c) => c.notNull().references("customers.id"))
    .addColumn("status", int, (c) => c.notNull())
    .addColumn("metadata_json", text, (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("updated_at", text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("contracts_customer").on("contracts").column("customer_id").execute();

  await db.schema
    .createTable("payment_links")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("token", text, (c) => c.notNull().unique())
    .addColumn("workflow", int, (c) => c.notNull())
    .addColumn("customer_id", text)
    .addColumn("contract_id", text)
    .addColumn("charge_id", text)
    .addColumn("price", int, (c) => c.notNull())
    .addColumn("description", text, (c) => c.notNull())
    .addColumn("metadata_json", text, (c) => c.notNull())
    .addColumn("email", text, (c) => c.notNull())
    .addColumn("force_kyc", int, (c) => c.notNull())
    .addColumn("success_url", text, (c) => c.notNull())
    .addColumn("failure_url", text, (c) => c.notNull())
    .addColumn("state", text, (c) => c.notNull())
    .addColumn("two_factor_verified", int, (c) => c.notNull().defaultTo(0))
    .addColumn("bank_linked", int, (c) => c.notNull().defaultTo(0))
    .addColumn("kyc_submitted", int, (c) => c.notNull().defaultTo(0))
    .addColumn("expires_at", text, (c) => c.notNull())
    .addColumn("completed_at", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("updated_at", text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("charges")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("customer_id", text)
    .addColumn("contract_id", text)
    .addColumn("on_session_id", text)
    .addColumn("request_id", text)
    .addColumn("api_source", int, (c) => c.notNull())
    .addColumn("status", int, (c) => c.notNull())
    .addColumn("amount", int, (c) => c.notNull())
    .addColumn("description", text, (c) => c.notNull())
    .addColumn("metadata_json", text, (c) => c.notNull())
    .addColumn("error_type", int, (c) => c.notNull().defaultTo(0))
    .addColumn("error_message", text, (c) => c.notNull().defaultTo(""))
    .addColumn("refunded_amount", int, (c) => c.notNull().defaultTo(0))
    .addColumn("pending_refund_amount", int, (c) => c.notNull().defaultTo(0))
    .addColumn("succeeded_at", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("updated_at", text, (c) => c.notNull())
    .addCheckConstraint("charges_refunds_within_amount", sql`refunded_amount + pending_refund_amount <= amount`)
    .execute();
  await db.schema
    .createIndex("charges_merchant_customer")
    .on("charges")
    .columns(["merchant_id", "customer_id", "created_at"])
    .execute();

  await db.schema
    .createTable("refunds")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("charge_id", text, (c) => c.notNull().references("charges.id"))
    .addColumn("amount", int, (c) => c.notNull())
    .addColumn("status", int, (c) => c.notNull())
    .addColumn("cancellation", int, (c) => c.notNull().defaultTo(0))
    .addColumn("reason", text, (c) => c.notNull().defaultTo(""))
    .addColumn("metadata_json", text, (c) => c.notNull().defaultTo("{}"))
    .addColumn("error_message", text, (c) => c.notNull().defaultTo(""))
    .addColumn("settle_after", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("updated_at", text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("refunds_charge").on("refunds").column("charge_id").execute();

  await db.schema
    .createTable("async_requests")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("charge_id", text, (c) => c.notNull())
    .addColumn("status", int, (c) => c.notNull())
    .addColumn("attempts", int, (c) => c.notNull().defaultTo(0))
    .addColumn("force_kyc", int, (c) => c.notNull().defaultTo(0))
    .addColumn("error_type", int, (c) => c.notNull().defaultTo(0))
    .addColumn("error_message", text, (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("updated_at", text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("events")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("event_type", int, (c) => c.notNull())
    .addColumn("event_type_name", text, (c) => c.notNull())
    .addColumn("charge_id", text, (c) => c.notNull().defaultTo(""))
    .addColumn("content_json", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("delivery_status", int, (c) => c.notNull())
    .addColumn("attempt_count", int, (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", text, (c) => c.notNull())
    .addColumn("lease_until", text)
    .addColumn("delivered_at", text)
    .execute();
  await db.schema.createIndex("events_due").on("events").columns(["delivery_status", "next_attempt_at"]).execute();
  await db.schema.createIndex("events_merchant_created").on("events").columns(["merchant_id", "created_at"]).execute();

  await db.schema
    .createTable("delivery_attempts")
    .addColumn("id", autoId, (c) => c.primaryKey())
    .addColumn("event_id", text, (c) => c.notNull())
    .addColumn("attempted_at", text, (c) => c.notNull())
    .addColumn("http_status", int, (c) => c.notNull())
    .addColumn("error", text, (c) => c.notNull())
    .addColumn("duration_ms", int, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("delivery_attempts_event").on("delivery_attempts").column("event_id").execute();

  await db.schema
    .createTable("idempotency_keys")
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("idempotency_key", text, (c) => c.notNull())
    .addColumn("method", text, (c) => c.notNull())
    .addColumn("request_hash", text, (c) => c.notNull())
    .addColumn("state", text, (c) => c.notNull())
    .addColumn("response_json", text, (c) => c.notNull().defaultTo(""))
    .addColumn("http_status", int, (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("expires_at", text, (c) => c.notNull())
    .addPrimaryKeyConstraint("idempotency_keys_pk", ["merchant_id", "idempotency_key"])
    .execute();

  await db.schema
    .createTable("one_time_codes")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("payment_link_id", text, (c) => c.notNull())
    .addColumn("code_hash", text, (c) => c.notNull())
    .addColumn("attempts", int, (c) => c.notNull().defaultTo(0))
    .addColumn("expires_at", text, (c) => c.notNull())
    .addColumn("used_at", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("one_time_codes_link").on("one_time_codes").column("payment_link_id").execute();

  await db.schema
    .createTable("mailbox")
    .addColumn("id", autoId, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("to_email", text, (c) => c.notNull())
    .addColumn("subject", text, (c) => c.notNull())
    .addColumn("body", text, (c) => c.notNull())
    .addColumn("code", text, (c) => c.notNull())
    .addColumn("sent_at", text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("bank_accounts")
    .addColumn("customer_id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull())
    .addColumn("bank_code", text, (c) => c.notNull())
    .addColumn("branch_code", text, (c) => c.notNull())
    .addColumn("account_number", text, (c) => c.notNull())
    .addColumn("account_holder", text, (c) => c.notNull())
    .addColumn("balance", "bigint", (c) => c.notNull())
    .addColumn("quota", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("under_maintenance", int, (c) => c.notNull().defaultTo(0))
    .addColumn("maintenance_until", text)
    .addColumn("reject", int, (c) => c.notNull().defaultTo(0))
    .addColumn("latency_ms", int, (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("bank_ledger")
    .addColumn("id", autoId, (c) => c.primaryKey())
    .addColumn("customer_id", text, (c) => c.notNull())
    .addColumn("reference", text, (c) => c.notNull().unique())
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("balance_after", "bigint", (c) => c.notNull())
    .addColumn("at", text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("bank_settings")
    .addColumn("merchant_id", text, (c) => c.primaryKey())
    .addColumn("under_maintenance", int, (c) => c.notNull().defaultTo(0))
    .addColumn("maintenance_until", text)
    .execute();

  await db.schema
    .createTable("jobs")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("kind", text, (c) => c.notNull())
    .addColumn("ref_id", text, (c) => c.notNull())
    .addColumn("run_at", text, (c) => c.notNull())
    .addColumn("attempts", int, (c) => c.notNull().defaultTo(0))
    .addColumn("lease_until", text)
    .addColumn("state", text, (c) => c.notNull())
    .addColumn("created_at", text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("jobs_due").on("jobs").columns(["state", "run_at"]).execute();
  await sql`create unique index jobs_kind_ref on jobs (kind, ref_id) where state = 'pending'`.execute(db);
}
