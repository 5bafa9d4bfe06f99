import { chargingRefusals } from "../domain/onboarding.js";
import { refuseBlockedMerchant } from "./charging-allowed.js";
import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import {
  csvBatchProgress,
  csvBatchRefusals,
  csvRowIdempotencyKey,
  csvRowOutcome,
  type CsvBatchProgress,
  type CsvRowOutcome,
  type CsvBatchRecord,
  type CsvRowState,
  type CsvRowWithCharge,
} from "../domain/csv-batch.js";
import { readCsvUpload } from "../domain/csv-file.js";
import { resultCsv } from "../domain/csv-result.js";
import { checkCsvRows, csvReason, rowsSharingCustomer, type CsvReason } from "../domain/csv-row.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { enqueueJob } from "../storage/jobs.js";
import { csvRowsWithCharges, findCsvBatch, listCsvBatches, updateCsvRow } from "../storage/csv-batches.js";
import type { Tx } from "../storage/transactor.js";
import type { DashboardPrincipal } from "./dashboard-auth.js";
import type { FlowContext } from "./flow-context.js";
import {
  confirmBatchWithTotp,
  newBatchChallenge,
  newCsvRow,
  storeUploadedBatch,
  type TotpChallenge,
} from "./csv-confirmation.js";
import { resolveCsvCustomers } from "./csv-customers.js";

/** A batch as the dashboard shows it: its record and where its rows stand. */
export interface CsvBatchView extends CsvBatchProgress {
  id: string;
  fileName: string;
  rowCount: number;
  createdAt: Date;
  expiresAt: Date;
  completedAt: Date | undefined;
}

export interface UploadedCsvBatch {
  batch: CsvBatchView;
  invalidRowCount: number;
  challenge: { id: string; expiresAt: Date };
}

/**
 * Upload (docs/reference/contract.md#csv-batch-reasons): a batch-level rejection throws
 * and nothing is stored; otherwise the batch and its rows (invalid ones with their reasons) are
 * stored with a TOTP challenge bound to the file's content. Nothing is charged before confirmation.
 */
export async function uploadCsvBatch(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  file: { fileName: string; content: Uint8Array },
): Promise<UploadedCsvBatch> {
  if (!principal.totpEnabled) throw csvBatchRefusals.totpNotEnabled();
  await refuseBlockedMerchant(ctx, principal.merchant.id, chargingRefusals.precondition);
  const upload = readCsvUpload(file.content);
  const checks = checkCsvRows(upload.rows, upload.header.length);
  const { batch, challenge } = await storeUploadedBatch(
    ctx,
    principal,
    {
      kind: "charges",
      fileName: file.fileName,
      upload,
      rows: upload.rows.map((cells, i) => {
        const check = checks[i];
        const key = check.valid ? csvRowIdempotencyKey(upload.contentHash, i + 1, check.row.idempotencyKey) : "";
        return newCsvRow(cells, check, key);
      }),
    },
    "csv_batch.upload",
  );
  return {
    batch: await getCsvBatch(ctx, principal, batch.id),
    invalidRowCount: checks.filter((c) => !c.valid).length,
    challenge,
  };
}

/** A new challenge for a batch still waiting for confirmation (its first one expired). */
export function newCsvBatchChallenge(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  batchId: string,
): Promise<TotpChallenge> {
  return newBatchChallenge(ctx, principal, batchId, "charges");
}

/**
 * Confirmation with a TOTP code (src/flows/csv-confirmation.ts, docs/reference/contract.md#limits);
 * on success every row's customer is resolved and a csv-row job queued per chargeable row.
 */
export async function confirmCsvBatch(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  input: { batchId: string; challengeId: string; code: string },
): Promise<CsvBatchView> {
  await refuseBlockedMerchant(ctx, principal.merchant.id, chargingRefusals.precondition);
  await confirmBatchWithTotp(ctx, principal, input, "charges", "csv_batch.confirm", resolveAndQueueRows);
  ctx.wake("jobs");
  return getCsvBatch(ctx, principal, input.batchId);
}

/**
 * docs/reference/contract.md#csv-batch-reasons, group 2 (customer resolution), without writing: each
 * row's reason to fail (by its index in `rows`) or its customer. The confirmation queues by it, and
 * the preview counts by it, so a row that will fail is never counted in what will be charged.
 * Rows that resolve to one customer together fail (one charge per customer per batch).
 */
async function resolveCsvRows(
  db: Tx,
  merchantId: string,
  rows: ReadonlyArray<{ cells: readonly string[] }>,
): Promise<{ failures: Map<number, CsvReason>; customerOfRow: Map<number, string> }> {
  const found = await resolveCsvCustomers(
    db,
    merchantId,
    rows.map(({ cells: [email = "", customerId = ""] }) => ({ email, customerId })),
  );
  const resolved: Array<{ index: number; customerId: string }> = [];
  const failures = new Map<number, CsvReason>();
  found.forEach((row, index) => {
    if ("failure" in row) failures.set(index, row.failure);
    else resolved.push({ index, customerId: row.customer.id });
  });
  for (const index of rowsSharingCustomer(resolved)) failures.set(index, csvReason("sameAccount"));
  return { failures, customerOfRow: new Map(resolved.map((r) => [r.index, r.customerId])) };
}

/** Each ready row: failed with its resolution's reason, or queued for its csv-row job. */
async function resolveAndQueueRows(trx: Tx, batch: CsvBatchRecord, now: Date): Promise<void> {
  const rows = (await csvRowsWithCharges(trx, batch.id)).filter((row) => row.state === "ready");
  const { failures, customerOfRow } = await resolveCsvRows(trx, batch.merchantId, rows);

  for (const [index, row] of rows.entries()) {
    const failure = failures.get(index);
    const customerId = customerOfRow.get(index) ?? null;
    const state: CsvRowState = failure ? "failed" : "queued";
    await updateCsvRow(trx, batch.id, row.rowNumber, {
      state,
      reason: failure?.en ?? "",
      reasonJa: failure?.ja ?? "",
      customerId,
      updatedAt: now,
    });
    if (!failure)
      await enqueueJob(trx, { kind: "csv-row", refId: csvRowJobRef(batch.id, row.rowNumber), runAt: now, now });
  }
}

/** The ref of a row's csv-row job. */
export function csvRowJobRef(batchId: string, rowNumber: number): string {
  return `${batchId}:${rowNumber}`;
}

export async function getCsvBatch(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  batchId: string,
): Promise<CsvBatchView> {
  const batch = await findCsvBatch(ctx.tx.db, principal.merchant.id, batchId, "charges");
  if (!batch) throw csvBatchRefusals.batchNotFound();
  return (await batchWithRows(ctx, batch)).view;
}

export async function listRecentCsvBatches(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  limit: number,
): Promise<CsvBatchView[]> {
  const batches = await listCsvBatches(ctx.tx.db, principal.merchant.id, limit, "charges");
  return Promise.all(batches.map(async (batch) => (await batchWithRows(ctx, batch)).view));
}

/** The result CSV (docs/guide/csv-batches.md); rows not final yet say "Payment is still processing". */
export async function csvBatchResult(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  batchId: string,
): Promise<{ fileName: string; content: string }> {
  const batch = await findCsvBatch(ctx.tx.db, principal.merchant.id, batchId, "charges");
  if (!batch) throw csvBatchRefusals.batchNotFound();
  if (batch.status === "uploaded")
    throw new RequestRefusal("precondition", "the batch has not been confirmed yet", {
      reason: "CSV_BATCH_NOT_CONFIRMED",
    });
  const { rows } = await batchWithRows(ctx, batch);
  const baseName = batch.fileName.replace(/\.csv$/i, "");
  return { fileName: `${baseName}-result.csv`, content: resultCsv(batch.header, rows) };
}

export interface CsvBatchRowView {
  rowNumber: number;
  cells: string[];
  /** "valid" before confirmation, then the result's status. */
  status: "valid" | CsvRowOutcome["status"];
  reason: string;
  reasonJa: string;
  chargeId: string;
}

/**
 * A batch's rows with their reasons in both languages, and what will be (or was) charged: the
 * rows not failed and the sum of their prices (docs/guide/csv-batches.md#before-confirmation).
 */
export async function csvBatchRows(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  batchId: string,
  failedOnly: boolean,
): Promise<{ rows: CsvBatchRowView[]; validCount: number; invalidCount: number; validAmount: number }> {
  const batch = await findCsvBatch(ctx.tx.db, principal.merchant.id, batchId, "charges");
  if (!batch) throw csvBatchRefusals.batchNotFound();
  const { rows, stored } = await batchWithRows(ctx, batch);
  // Before confirmation, a valid row whose customer will not resolve is shown failed with its reason
  // now, and left out of what will be charged (the confirmation resolves the same way).
  const preview = batch.status === "uploaded";
  const ready = preview ? stored.flatMap((row, i) => (row.state === "ready" ? [{ row, i }] : [])) : [];
  const resolution = await resolveCsvRows(
    ctx.tx.db,
    batch.merchantId,
    ready.map(({ row }) => row),
  );
  const failures = new Map([...resolution.failures].map(([at, reason]) => [ready[at].i, reason]));
  const views = rows.map(({ cells, outcome }, i): CsvBatchRowView => {
    const waiting = preview && outcome.status === "processing";
    const failure = waiting ? failures.get(i) : undefined;
    return {
      rowNumber: stored[i].rowNumber,
      cells,
      status: failure ? "failed" : waiting ? "valid" : outcome.status,
      reason: failure?.en ?? (waiting ? "" : outcome.reason),
      reasonJa: failure?.ja ?? (waiting ? "" : outcome.reasonJa),
      chargeId: stored[i].chargeId ?? "",
    };
  });
  const valid = views.filter((row) => row.status !== "failed");
  return {
    rows: failedOnly ? views.filter((row) => row.status === "failed") : views,
    validCount: valid.length,
    invalidCount: views.length - valid.length,
    validAmount: valid.reduce((sum, row) => sum + Number(row.cells[2]?.trim() || 0), 0),
  };
}

async function batchWithRows(
  ctx: FlowContext,
  batch: CsvBatchRecord,
): Promise<{
  view: CsvBatchView;
  rows: Array<{ cells: string[]; outcome: CsvRowOutcome; chargeId: string | null }>;
  stored: CsvRowWithCharge[];
}> {
  const stored = await csvRowsWithCharges(ctx.tx.db, batch.id);
  const rows = stored.map((row) => ({
    cells: row.cells,
    chargeId: row.chargeId,
    outcome: csvRowOutcome(
      row,
      row.chargeStatus === null
        ? undefined
        : { status: row.chargeStatus, errorType: row.chargeErrorType ?? ErrorType.UNSPECIFIED },
    ),
  }));
  const progress = csvBatchProgress(
    batch.status !== "uploaded",
    rows.map((r) => r.outcome),
  );
  // Completed when the last row became final: the latest time a row or its charge changed.
  const lastChange = stored
    .flatMap((row) => [row.updatedAt, row.chargeUpdatedAt ?? undefined])
    .reduce<Date | undefined>(
      (latest, at) => (at && (!latest || at > latest) ? at : latest),
      batch.confirmedAt ?? undefined,
    );
  return {
    rows,
    stored,
    view: {
      ...progress,
      id: batch.id,
      fileName: batch.fileName,
      rowCount: batch.rowCount,
      createdAt: batch.createdAt,
      expiresAt: batch.expiresAt,
      completedAt: progress.status === "completed" ? lastChange : undefined,
    },
  };
}
