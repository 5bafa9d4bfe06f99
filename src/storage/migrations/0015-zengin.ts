import type { Kysely } from "kysely";

/**
 * The Zengin file exchange (docs/operations/zengin.md): each merchant's consignor settings, the
 * debits and transfers waiting for or carried in a file, and the files sent and received.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const text = "text" as const;
  const int = "integer" as const;
  const money = "bigint" as const;

  await db.schema
    .createTable("zengin_consignors")
    .addColumn("merchant_id", text, (c) => c.primaryKey().references("merchants.id"))
    .addColumn("code", text, (c) => c.notNull())
    .addColumn("name", text, (c) => c.notNull())
    .addColumn("bank_code", text, (c) => c.notNull())
    .addColumn("bank_name", text, (c) => c.notNull())
    .addColumn("branch_code", text, (c) => c.notNull())
    .addColumn("branch_name", text, (c) => c.notNull())
    .addColumn("account_type", int, (c) => c.notNull())
    .addColumn("account_number", text, (c) => c.notNull())
    // A monthly debit day (1–28) the merchant chose; 0: ZENGIN_LEAD_DAYS after acceptance.
    .addColumn("debit_day", int, (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", text, (c) => c.notNull())
    .execute();

  // Sandbox: when the simulated bank answers a merchant's files (minutes after 00:00 JST of their date).
  await db.schema
    .createTable("zengin_simulated_bank")
    .addColumn("merchant_id", text, (c) => c.primaryKey())
    .addColumn("result_delay_minutes", int, (c) => c.notNull())
    .execute();

  // One row per file, sent (direction out) or received (in). An outgoing file's id is derived from
  // merchant, kind and date, so a file is created once however many instances try.
  await db.schema
    .createTable("zengin_files")
    .addColumn("id", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull())
    // "91" account debits, "21" transfers (refunds)
    .addColumn("kind", text, (c) => c.notNull())
    .addColumn("direction", text, (c) => c.notNull())
    // The debit or transfer date (YYYY-MM-DD, JST).
    .addColumn("date", text, (c) => c.notNull())
    .addColumn("name", text, (c) => c.notNull())
    // out: writing → sent → answered; in: archived | quarantined
    .addColumn("state", text, (c) => c.notNull())
    // in: the file it answers
    .addColumn("answers", text)
    .addColumn("record_count", int, (c) => c.notNull())
    .addColumn("total_amount", money, (c) => c.notNull())
    .addColumn("done_count", int, (c) => c.notNull().defaultTo(0))
    .addColumn("done_amount", money, (c) => c.notNull().defaultTo(0))
    .addColumn("failed_count", int, (c) => c.notNull().defaultTo(0))
    .addColumn("failed_amount", money, (c) => c.notNull().defaultTo(0))
    .addColumn("sha256", text, (c) => c.notNull().defaultTo(""))
    .addColumn("reason", text, (c) => c.notNull().defaultTo(""))
    // out: the consignor as the file was recorded (its bytes do not change with later settings)
    .addColumn("consignor_json", text, (c) => c.notNull().defaultTo(""))
    // out: when its results are overdue (ZENGIN_RESULT_DEADLINE_DAYS business days after its date)
    .addColumn("due_at", text)
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("updated_at", text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("zengin_files_state").on("zengin_files").columns(["direction", "state"]).execute();

  // A debit (charge) or a transfer (refund) on its way through a file: scheduled → filed →
  // answered, or cancelled before its file.
  for (const table of ["zengin_debits", "zengin_transfers"]) {
    await db.schema
      .createTable(table)
      .addColumn("reference", text, (c) => c.primaryKey())
      .addColumn("merchant_id", text, (c) => c.notNull())
      // The debit date; for a transfer, the date of the file it went into.
      .addColumn("date", text)
      .addColumn("state", text, (c) => c.notNull())
      .addColumn("file_id", text)
      .addColumn("customer_number", text)
      .addColumn("amount", money, (c) => c.notNull())
      .addColumn("new_code", int, (c) => c.notNull())
      .addColumn("bank_code", text, (c) => c.notNull())
      .addColumn("branch_code", text, (c) => c.notNull())
      .addColumn("account_type", int, (c) => c.notNull())
      .addColumn("account_number", text, (c) => c.notNull())
      .addColumn("holder", text, (c) => c.notNull())
      .addColumn("result_code", int)
      .addColumn("created_at", text, (c) => c.notNull())
      .addColumn("updated_at", text, (c) => c.notNull())
      .execute();
    await db.schema.createIndex(`${table}_due`).on(table).columns(["state", "merchant_id", "date"]).execute();
    await db.schema.createIndex(`${table}_file`).on(table).columns(["file_id", "customer_number"]).execute();
  }
}
