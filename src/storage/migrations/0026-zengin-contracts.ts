import type { Kysely } from "kysely";

/**
 * Consignor contracts with a scope (docs/operations/zengin.md#contracts): a merchant may hold
 * several 口座振替 contracts, each keyed by its 委託者コード (unique across merchants) with its scope
 * (bank | agent | yucho), an agent's bank list, and its own 振込依頼人コード for 総合振込. Each
 * merchant's consignor settings become one `agent` contract covering every bank, its transfer
 * code its 委託者コード (the files stay byte for byte what they were). Items and files name the
 * contract whose file carries them. What a consignor's bank accepts in names (0025) goes with its contract.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const text = "text" as const;
  const int = "integer" as const;
  await db.schema
    .createTable("zengin_contracts")
    .addColumn("code", text, (c) => c.primaryKey())
    .addColumn("merchant_id", text, (c) => c.notNull().references("merchants.id"))
    .addColumn("scope", text, (c) => c.notNull())
    .addColumn("banks", text, (c) => c.notNull().defaultTo(""))
    .addColumn("transfer_code", text, (c) => c.notNull())
    .addColumn("name", text, (c) => c.notNull())
    .addColumn("bank_code", text, (c) => c.notNull())
    .addColumn("bank_name", text, (c) => c.notNull())
    .addColumn("branch_code", text, (c) => c.notNull())
    .addColumn("branch_name", text, (c) => c.notNull())
    .addColumn("account_type", int, (c) => c.notNull())
    .addColumn("account_number", text, (c) => c.notNull())
    .addColumn("debit_day", int, (c) => c.notNull().defaultTo(0))
    .addColumn("name_characters", text, (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", text, (c) => c.notNull())
    .addColumn("updated_at", text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("zengin_contracts_merchant").on("zengin_contracts").column("merchant_id").execute();
  // A result file of 種別 21 is matched to its contract by the 振込依頼人コード in its header.
  await db.schema
    .createIndex("zengin_contracts_transfer_code")
    .unique()
    .on("zengin_contracts")
    .column("transfer_code")
    .execute();

  const consignors = await db.selectFrom("zengin_consignors").selectAll().execute();
  for (const row of consignors)
    await db
      .insertInto("zengin_contracts")
      .values({
        code: row.code,
        merchant_id: row.merchant_id,
        scope: "agent",
        banks: "",
        transfer_code: row.code,
        name: row.name,
        bank_code: row.bank_code,
        bank_name: row.bank_name,
        branch_code: row.branch_code,
        branch_name: row.branch_name,
        account_type: row.account_type,
        account_number: row.account_number,
        debit_day: row.debit_day,
        name_characters: row.name_characters,
        created_at: row.updated_at,
        updated_at: row.updated_at,
      })
      .execute();

  for (const table of ["zengin_debits", "zengin_transfers", "zengin_files"]) {
    await db.schema
      .alterTable(table)
      .addColumn("contract_code", text, (c) => c.notNull().defaultTo(""))
      .execute();
    // What the merchant's one consignor carried so far.
    for (const row of consignors)
      await db.updateTable(table).set({ contract_code: row.code }).where("merchant_id", "=", row.merchant_id).execute(); // The cycle looks its due items up by contract and date (scheduledGroups): by index, as before.
    if (table !== "zengin_files") {
      await db.schema.dropIndex(`${table}_due`).execute();
      await db.schema
        .createIndex(`${table}_due`)
        .on(table)
        .columns(["state", "merchant_id", "contract_code", "date"])
        .execute();
    }
  }
  await db.schema.dropTable("zengin_consignors").execute();
}
