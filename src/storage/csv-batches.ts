import type { Kysely, Updateable } from "kysely";
import type {
  CsvBatchKind,
  CsvBatchRecord,
  CsvRowRecord,
  CsvRowState,
  CsvRowWithCharge,
  CsvTotpChallengeRecord,
} from "../domain/csv-batch.js";
import type { CsvBatchTable, CsvRowTable, Database, TotpChallengeTable } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";

function csvBatchFromRow(row: CsvBatchTable): CsvBatchRecord {
  return {
    id: row.id,
    kind: row.kind as CsvBatchKind,
    merchantId: row.merchant_id,
    userId: row.user_id,
    fileName: row.file_name,
    contentHash: row.content_hash,
    header: JSON.parse(row.header_json),
    rowCount: row.row_count,
    status: row.status as CsvBatchRecord["status"],
    expiresAt: new Date(row.expires_at),
    confirmedAt: row.confirmed_at ? new Date(row.confirmed_at) : null,
    createdAt: new Date(row.created_at),
  };
}

function csvBatchToRow(batch: CsvBatchRecord): CsvBatchTable {
  return {
    id: batch.id,
    kind: batch.kind,
    merchant_id: batch.merchantId,
    user_id: batch.userId,
    file_name: batch.fileName,
    content_hash: batch.contentHash,
    header_json: JSON.stringify(batch.header),
    row_count: batch.rowCount,
    status: batch.status,
    expires_at: batch.expiresAt.toISOString(),
    confirmed_at: batch.confirmedAt?.toISOString() ?? null,
    created_at: batch.createdAt.toISOString(),
  };
}

function csvRowFromRow(row: CsvRowTable): CsvRowRecord {
  return {
    batchId: row.batch_id,
    rowNumber: row.row_number,
    cells: JSON.parse(row.cells_json),
    state: row.state as CsvRowState,
    reason: row.reason,
    reasonJa: row.reason_ja,
    customerId: row.customer_id,
    idempotencyKey: row.idempotency_key,
    chargeId: row.charge_id,
    subscriptionId: row.subscription_id,
    updatedAt: new Date(row.updated_at),
  };
}

function csvRowToRow(row: CsvRowRecord): CsvRowTable {
  return {
    batch_id: row.batchId,
    row_number: row.rowNumber,
    cells_json: JSON.stringify(row.cells),
    state: row.state,
    reason: row.reason,
    reason_ja: row.reasonJa,
    customer_id: row.customerId,
    idempotency_key: row.idempotencyKey,
    charge_id: row.chargeId,
    subscription_id: row.subscriptionId,
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function insertCsvBatch(trx: Tx, batch: CsvBatchRecord, rows: CsvRowRecord[]): Promise<void> {
  await trx.insertInto("csv_batches").values(csvBatchToRow(batch)).execute();
  // 300 rows × 10 columns stays under SQLite's 32,766 bound parameters.
  await trx.insertInto("csv_rows").values(rows.map(csvRowToRow)).execute();
}

/** The merchant's batch of that kind (a charge batch's id does not open an import, nor the reverse). */
export async function findCsvBatch(
  db: Kysely<Database>,
  merchantId: string,
  id: string,
  kind: CsvBatchKind,
): Promise<CsvBatchRecord | undefined> {
  const row = await db
    .selectFrom("csv_batches")
    .selectAll()
    .where("id", "=", id)
    .where("merchant_id", "=", merchantId)
    .where("kind", "=", kind)
    .executeTakeFirst();
  return row && csvBatchFromRow(row);
}

export async function lockCsvBatch(
  tx: Transactor,
  trx: Tx,
  merchantId: string,
  id: string,
  kind: CsvBatchKind,
): Promise<CsvBatchRecord | undefined> {
  const row = await tx
    .lockRows(
      trx
        .selectFrom("csv_batches")
        .selectAll()
        .where("id", "=", id)
        .where("merchant_id", "=", merchantId)
        .where("kind", "=", kind),
    )
    .executeTakeFirst();
  return row && csvBatchFromRow(row);
}

export async function listCsvBatches(
  db: Kysely<Database>,
  merchantId: string,
  limit: number,
  kind: CsvBatchKind,
): Promise<CsvBatchRecord[]> {
  const rows = await db
    .selectFrom("csv_batches")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("kind", "=", kind)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map(csvBatchFromRow);
}

export async function markCsvBatchConfirmed(trx: Tx, id: string, at: Date): Promise<void> {
  await trx
    .updateTable("csv_batches")
    .set({ status: "running", confirmed_at: at.toISOString() })
    .where("id", "=", id)
    .execute();
}

/** The rows of a batch in file order, with the status, error and time of each row's charge. */
export async function csvRowsWithCharges(db: Kysely<Database>, batchId: string): Promise<CsvRowWithCharge[]> {
  const rows = await db
    .selectFrom("csv_rows")
    .leftJoin("charges", "charges.id", "csv_rows.charge_id")
    .selectAll("csv_rows")
    .select([
      "charges.status as charge_status",
      "charges.error_type as charge_error_type",
      "charges.updated_at as charge_updated_at",
    ])
    .where("csv_rows.batch_id", "=", batchId)
    .orderBy("csv_rows.row_number")
    .execute();
  return rows.map((row) => ({
    ...csvRowFromRow(row),
    chargeStatus: row.charge_status,
    chargeErrorType: row.charge_error_type,
    chargeUpdatedAt: row.charge_updated_at ? new Date(row.charge_updated_at) : null,
  }));
}

export async function findCsvRow(
  db: Kysely<Database>,
  batchId: string,
  rowNumber: number,
): Promise<CsvRowRecord | undefined> {
  const row = await db
    .selectFrom("csv_rows")
    .selectAll()
    .where("batch_id", "=", batchId)
    .where("row_number", "=", rowNumber)
    .executeTakeFirst();
  return row && csvRowFromRow(row);
}

export async function updateCsvRow(
  trx: Tx,
  batchId: string,
  rowNumber: number,
  change: Partial<
    Pick<
      CsvRowRecord,
      "state" | "reason" | "reasonJa" | "customerId" | "chargeId" | "subscriptionId" | "idempotencyKey" | "updatedAt"
    >
  >,
): Promise<void> {
  const set: Updateable<CsvRowTable> = {};
  if (change.state !== undefined) set.state = change.state;
  if (change.reason !== undefined) set.reason = change.reason;
  if (change.reasonJa !== undefined) set.reason_ja = change.reasonJa;
  if (change.customerId !== undefined) set.customer_id = change.customerId;
  if (change.chargeId !== undefined) set.charge_id = change.chargeId;
  if (change.subscriptionId !== undefined) set.subscription_id = change.subscriptionId;
  if (change.idempotencyKey !== undefined) set.idempotency_key = change.idempotencyKey;
  if (change.updatedAt !== undefined) set.updated_at = change.updatedAt.toISOString();
  await trx
    .updateTable("csv_rows")
    .set(set)
    .where("batch_id", "=", batchId)
    .where("row_number", "=", rowNumber)
    .execute();
}

export async function insertTotpChallenge(trx: Tx, challenge: CsvTotpChallengeRecord): Promise<void> {
  const row: TotpChallengeTable = {
    id: challenge.id,
    user_id: challenge.userId,
    batch_id: challenge.batchId,
    content_hash: challenge.contentHash,
    failures: challenge.failures,
    expires_at: challenge.expiresAt.toISOString(),
    used_at: challenge.usedAt?.toISOString() ?? null,
    created_at: challenge.createdAt.toISOString(),
  };
  await trx.insertInto("totp_challenges").values(row).execute();
}

export async function findTotpChallenge(
  db: Kysely<Database>,
  id: string,
  userId: string,
  batchId: string,
): Promise<CsvTotpChallengeRecord | undefined> {
  const row = await db
    .selectFrom("totp_challenges")
    .selectAll()
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .where("batch_id", "=", batchId)
    .executeTakeFirst();
  return (
    row && {
      id: row.id,
      userId: row.user_id,
      batchId: row.batch_id,
      contentHash: row.content_hash,
      failures: row.failures,
      expiresAt: new Date(row.expires_at),
      usedAt: row.used_at ? new Date(row.used_at) : null,
      createdAt: new Date(row.created_at),
    }
  );
}

export async function updateTotpChallenge(
  trx: Tx,
  id: string,
  change: { failures: number } | { usedAt: Date },
): Promise<void> {
  const set = "failures" in change ? { failures: change.failures } : { used_at: change.usedAt.toISOString() };
  await trx.updateTable("totp_challenges").set(set).where("id", "=", id).execute();
}

/** For the csv-row job, which knows the batch by id only. */
export async function findCsvBatchById(db: Kysely<Database>, id: string): Promise<CsvBatchRecord | undefined> {
  const row = await db.selectFrom("csv_batches").selectAll().where("id", "=", id).executeTakeFirst();
  return row && csvBatchFromRow(row);
}
