import type { Kysely } from "kysely";
import type { CsvRowState } from "../domain/csv-batch.js";
import type { CsvBatchTable, CsvRowTable, Database, TotpChallengeTable } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";

export type CsvBatchRow = CsvBatchTable;
export type CsvRowRow = Omit<CsvRowTable, "state"> & { state: CsvRowState };

export async function insertCsvBatch(trx: Tx, batch: CsvBatchRow, rows: CsvRowRow[]): Promise<void> {
  await trx.insertInto("csv_batches").values(batch).execute();
  // 300 rows × 10 columns stays under SQLite's 32,766 bound parameters.
  await trx.insertInto("csv_rows").values(rows).execute();
}

export async function findCsvBatch(
  db: Kysely<Database>,
  merchantId: string,
  id: string,
): Promise<CsvBatchRow | undefined> {
  return db
    .selectFrom("csv_batches")
    .selectAll()
    .where("id", "=", id)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
}

export async function lockCsvBatch(
  tx: Transactor,
  trx: Tx,
  merchantId: string,
  id: string,
): Promise<CsvBatchRow | undefined> {
  return tx
    .lockRows(trx.selectFrom("csv_batches").selectAll().where("id", "=", id).where("merchant_id", "=", merchantId))
    .executeTakeFirst();
}

export async function listCsvBatches(db: Kysely<Database>, merchantId: string, limit: number): Promise<CsvBatchRow[]> {
  return db
    .selectFrom("csv_batches")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

export async function markCsvBatchConfirmed(trx: Tx, id: string, at: string): Promise<void> {
  await trx.updateTable("csv_batches").set({ status: "running", confirmed_at: at }).where("id", "=", id).execute();
}

/** The rows of a batch in file order, with the status, error and time of each row's charge. */
export async function csvRowsWithCharges(db: Kysely<Database>, batchId: string) {
  const rows = await db
    .selectFrom("csv_rows")
    .leftJoin("charges", "charges.id", "csv_rows.charge_id")
    .select([
      "csv_rows.batch_id",
      "csv_rows.row_number",
      "csv_rows.cells_json",
      "csv_rows.state",
      "csv_rows.reason",
      "csv_rows.reason_ja",
      "csv_rows.customer_id",
      "csv_rows.idempotency_key",
      "csv_rows.charge_id",
      "csv_rows.updated_at",
      "charges.status as charge_status",
      "charges.error_type as charge_error_type",
      "charges.updated_at as charge_updated_at",
    ])
    .where("csv_rows.batch_id", "=", batchId)
    .orderBy("csv_rows.row_number")
    .execute();
  return rows.map((row) => ({ ...row, state: row.state as CsvRowState }));
}

export async function findCsvRow(
  db: Kysely<Database>,
  batchId: string,
  rowNumber: number,
): Promise<CsvRowRow | undefined> {
  const row = await db
    .selectFrom("csv_rows")
    .selectAll()
    .where("batch_id", "=", batchId)
    .where("row_number", "=", rowNumber)
    .executeTakeFirst();
  return row && { ...row, state: row.state as CsvRowState };
}

export async function updateCsvRow(
  trx: Tx,
  batchId: string,
  rowNumber: number,
  change: Partial<
    Pick<CsvRowRow, "state" | "reason" | "reason_ja" | "customer_id" | "charge_id" | "idempotency_key" | "updated_at">
  >,
): Promise<void> {
  await trx
    .updateTable("csv_rows")
    .set(change)
    .where("batch_id", "=", batchId)
    .where("row_number", "=", rowNumber)
    .execute();
}

export async function insertTotpChallenge(trx: Tx, challenge: TotpChallengeTable): Promise<void> {
  await trx.insertInto("totp_challenges").values(challenge).execute();
}

export async function findTotpChallenge(
  db: Kysely<Database>,
  id: string,
  userId: string,
  batchId: string,
): Promise<TotpChallengeTable | undefined> {
  return db
    .selectFrom("totp_challenges")
    .selectAll()
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .where("batch_id", "=", batchId)
    .executeTakeFirst();
}

export async function updateTotpChallenge(
  trx: Tx,
  id: string,
  change: Partial<Pick<TotpChallengeTable, "failures" | "used_at">>,
): Promise<void> {
  await trx.updateTable("totp_challenges").set(change).where("id", "=", id).execute();
}

/** For the csv-row job, which knows the batch by id only. */
export async function findCsvBatchById(db: Kysely<Database>, id: string): Promise<CsvBatchRow | undefined> {
  return db.selectFrom("csv_batches").selectAll().where("id", "=", id).executeTakeFirst();
}
