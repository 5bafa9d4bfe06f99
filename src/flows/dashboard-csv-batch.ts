import { chargingRefusals } from "../domain/onboarding.js";
import { refuseBlockedMerchant } from "./charging-allowed.js";
import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import {
  csvBatchProgress,
  csvBatchRefusals,
  csvConfirmationLimits,
  csvRowIdempotencyKey,
  csvRowOutcome,
  confirmationRefusal,
  type CsvBatchProgress,
  type CsvRowOutcome,
  type CsvBatchRecord,
  type CsvRowState,
  type CsvRowWithCharge,
} from "../domain/csv-batch.js";
import { readCsvUpload } from "../domain/csv-file.js";
import { afterFailure, isLocked } from "../domain/failure-lock.js";
import { resultCsv } from "../domain/csv-result.js";
import { checkCsvRows, csvReason, rowsSharingCustomer, type CsvReason } from "../domain/csv-row.js";
import { normalizeEmail } from "../domain/customer.js";
import { newId } from "../domain/ids.js";
import { offSessionRefusal } from "../domain/off-session-eligibility.js";
import type { CustomerRecord } from "../domain/records.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { verifyTotpCode } from "../domain/totp.js";
import { enqueueJob } from "../storage/jobs.js";
import {
  csvRowsWithCharges,
  findCsvBatch,
  findTotpChallenge,
  insertCsvBatch,
  insertTotpChallenge,
  listCsvBatches,
  lockCsvBatch,
  markCsvBatchConfirmed,
  updateCsvRow,
  updateTotpChallenge,
} from "../storage/csv-batches.js";
import { activatedContractsOf, customersForResolution } from "../storage/dashboard-queries.js";
import { lockDashboardUser, updateDashboardUser } from "../storage/dashboard-users.js";
import type { Tx } from "../storage/transactor.js";
import type { DashboardPrincipal } from "./dashboard-auth.js";
import type { FlowContext } from "./flow-context.js";

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
  await refuseBlockedMerchant(ctx, principal.merchant.id, chargingRefusals.dashboard);
  const upload = readCsvUpload(file.content);
  const checks = checkCsvRows(upload.rows, upload.header.length);
  const now = ctx.clock.now();
  const batch: CsvBatchRecord = {
    id: newId("bat"),
    merchantId: principal.merchant.id,
    userId: principal.userId,
    fileName: file.fileName.trim() || "batch.csv",
    contentHash: upload.contentHash,
    header: upload.header,
    rowCount: upload.rows.length,
    status: "uploaded",
    expiresAt: new Date(now.getTime() + csvConfirmationLimits.batchMs),
    confirmedAt: null,
    createdAt: now,
  };
  const challenge = { id: newId("tch"), expiresAt: new Date(now.getTime() + csvConfirmationLimits.challengeMs) };
  await ctx.tx.write(async (trx) => {
    await insertCsvBatch(
      trx,
      batch,
      upload.rows.map((cells, i) => {
        const check = checks[i];
        return {
          batchId: batch.id,
          rowNumber: i + 1,
          cells,
          state: check.valid ? "ready" : "invalid",
          reason: check.valid ? "" : check.reason,
          reasonJa: check.valid ? "" : check.reasonJa,
          customerId: null,
          idempotencyKey: check.valid ? csvRowIdempotencyKey(upload.contentHash, i + 1, check.row.idempotencyKey) : "",
          chargeId: null,
          updatedAt: batch.createdAt,
        };
      }),
    );
    await insertChallenge(trx, principal, batch, challenge, now);
    await ctx.audit?.(trx, {
      action: "csv_batch.upload",
      target: batch.id,
      details: { file_name: batch.fileName, rows: batch.rowCount },
    });
  });
  return {
    batch: await getCsvBatch(ctx, principal, batch.id),
    invalidRowCount: checks.filter((c) => !c.valid).length,
    challenge,
  };
}

function insertChallenge(
  trx: Tx,
  principal: DashboardPrincipal,
  batch: CsvBatchRecord,
  challenge: { id: string; expiresAt: Date },
  now: Date,
) {
  return insertTotpChallenge(trx, {
    id: challenge.id,
    userId: principal.userId,
    batchId: batch.id,
    contentHash: batch.contentHash,
    failures: 0,
    expiresAt: challenge.expiresAt,
    usedAt: null,
    createdAt: now,
  });
}

/** A new challenge for a batch still waiting for confirmation (its first one expired). */
export async function newCsvBatchChallenge(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  batchId: string,
): Promise<{ id: string; expiresAt: Date }> {
  if (!principal.totpEnabled) throw csvBatchRefusals.totpNotEnabled();
  const now = ctx.clock.now();
  const challenge = { id: newId("tch"), expiresAt: new Date(now.getTime() + csvConfirmationLimits.challengeMs) };
  await ctx.tx.write(async (trx) => {
    const batch = await lockCsvBatch(ctx.tx, trx, principal.merchant.id, batchId);
    if (!batch) throw csvBatchRefusals.batchNotFound();
    if (batch.status !== "uploaded")
      throw new RequestRefusal("precondition", "the batch is already confirmed", { reason: "CSV_BATCH_CONFIRMED" });
    if (now >= batch.expiresAt) throw csvBatchRefusals.batchExpired();
    await insertChallenge(trx, principal, batch, challenge, now);
  });
  return challenge;
}

/**
 * Confirmation with a TOTP code (docs/reference/contract.md#limits): one transaction checks the batch, the challenge and
 * the code, counts a wrong code (3 in a row lock confirmation for 15 minutes), and on success
 * marks the code's time-step used, resolves every row's customer and queues a csv-row job per
 * chargeable row. A refusal is thrown after its count is committed.
 */
export async function confirmCsvBatch(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  input: { batchId: string; challengeId: string; code: string },
): Promise<CsvBatchView> {
  await refuseBlockedMerchant(ctx, principal.merchant.id, chargingRefusals.dashboard);
  const now = ctx.clock.now();
  const refusal = await ctx.tx.write(async (trx): Promise<RequestRefusal | undefined> => {
    const batch = await lockCsvBatch(ctx.tx, trx, principal.merchant.id, input.batchId);
    const user = await lockDashboardUser(ctx.tx, trx, principal.userId);
    if (!user) throw new RequestRefusal("unauthenticated", "the session's user no longer exists");
    const challenge = batch ? await findTotpChallenge(trx, input.challengeId, user.id, batch.id) : undefined;
    const lockedUntil = user.totpLockedUntil;
    const refused = confirmationRefusal(
      {
        batch,
        challenge,
        user: { totpEnabled: user.totpEnabled, lockedUntil },
      },
      now,
    );
    if (refused === "confirmed") return undefined;
    if (refused) return refused;
    // Past the refusals, the batch and this user's challenge for it exist.
    const verdict = verifyTotpCode(user.totpSecret, input.code, now, user.totpLastStep);
    if (!verdict.accepted) {
      const next = afterFailure({ failures: user.totpFailures, lockedUntil }, now, csvConfirmationLimits.lock);
      await updateDashboardUser(trx, user.id, {
        totpFailures: next.failures,
        totpLockedUntil: next.lockedUntil,
        updatedAt: now,
      });
      await updateTotpChallenge(trx, challenge!.id, { failures: challenge!.failures + 1 });
      // A wrong step-up code is audited like a wrong sign-in code (docs/reference/security.md#dashboard-sign-in).
      await ctx.audit?.(trx, { action: "sign_in.failed", target: user.id, details: { step: "csv_batch" } });
      return next.lockedUntil && isLocked(next, now)
        ? csvBatchRefusals.locked(next.lockedUntil)
        : csvBatchRefusals.invalidCode(csvConfirmationLimits.lock.max - next.failures, verdict.replayed);
    }
    await updateDashboardUser(trx, user.id, {
      totpLastStep: verdict.step,
      totpFailures: 0,
      totpLockedUntil: null,
      updatedAt: now,
    });
    await updateTotpChallenge(trx, challenge!.id, { usedAt: now });
    await markCsvBatchConfirmed(trx, batch!.id, now);
    await resolveAndQueueRows(trx, batch!, now);
    await ctx.audit?.(trx, {
      action: "csv_batch.confirm",
      target: batch!.id,
      details: { file_name: batch!.fileName, rows: batch!.rowCount },
    });
    return undefined;
  });
  if (refusal) throw refusal;
  ctx.wake("jobs");
  return getCsvBatch(ctx, principal, input.batchId);
}

/**
 * docs/reference/contract.md#csv-batch-reasons, group 2 (customer resolution), without writing: each
 * row's reason to fail (by its index in `rows`) or its customer. The confirmation queues by it, and
 * the preview counts by it, so a row that will fail is never counted in what will be charged.
 */
async function resolveCsvRows(
  db: Tx,
  merchantId: string,
  rows: ReadonlyArray<{ cells: readonly string[] }>,
): Promise<{ failures: Map<number, CsvReason>; customerOfRow: Map<number, string> }> {
  const wanted = rows
    .map(({ cells }) => cells)
    .map(([email, customerId]) => ({ customerId: customerId.trim(), email: normalizeEmail(email) }));
  const customers = await customersForResolution(
    db,
    merchantId,
    wanted.filter((w) => w.customerId).map((w) => w.customerId),
    wanted.filter((w) => !w.customerId).map((w) => w.email),
  );
  const byId = new Map(customers.map((c) => [c.id, c]));
  const byEmail = new Map(customers.map((c) => [normalizeEmail(c.email), c]));
  const activatedContract = new Map((await activatedContractsOf(db, [...byId.keys()])).map((c) => [c.customerId, c]));

  const resolved: Array<{ index: number; customerId: string }> = [];
  const failures = new Map<number, CsvReason>();
  wanted.forEach((w, index) => {
    const customer: CustomerRecord | undefined = w.customerId ? byId.get(w.customerId) : byEmail.get(w.email);
    const refusal = offSessionRefusal({
      customer,
      activatedContract: customer && activatedContract.get(customer.id),
      forceKyc: false,
    });
    if (refusal === ErrorType.PAYMENT_CUSTOMER_NOT_FOUND)
      failures.set(index, csvReason(w.customerId ? "customerIdNotFound" : "emailNotLinked"));
    else if (refusal !== undefined) failures.set(index, csvReason("customerInactive"));
    else if (customer) resolved.push({ index, customerId: customer.id });
  });
  for (const index of rowsSharingCustomer(resolved)) failures.set(index, csvReason("sameAccount"));
  return { failures, customerOfRow: new Map(resolved.map((r) => [r.index, r.customerId])) };
}

/**
 * docs/reference/contract.md#csv-batch-reasons, group 2 (customer resolution): a row names its customer by customer_id, or else by the
 * e-mail the customer was created with. Not found, or not chargeable (no activated contract,
 * payment not authorized), fails the row; so do rows that resolve to one customer together (one
 * charge per customer per batch). The rest are queued.
 */
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
  const batch = await findCsvBatch(ctx.tx.db, principal.merchant.id, batchId);
  if (!batch) throw csvBatchRefusals.batchNotFound();
  return (await batchWithRows(ctx, batch)).view;
}

export async function listRecentCsvBatches(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  limit: number,
): Promise<CsvBatchView[]> {
  const batches = await listCsvBatches(ctx.tx.db, principal.merchant.id, limit);
  return Promise.all(batches.map(async (batch) => (await batchWithRows(ctx, batch)).view));
}

/** The result CSV (docs/guide/csv-batches.md); rows not final yet say "Payment is still processing". */
export async function csvBatchResult(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  batchId: string,
): Promise<{ fileName: string; content: string }> {
  const batch = await findCsvBatch(ctx.tx.db, principal.merchant.id, batchId);
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
  const batch = await findCsvBatch(ctx.tx.db, principal.merchant.id, batchId);
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
