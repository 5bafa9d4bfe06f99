import type { AuditAction } from "../domain/audit.js";
import {
  type CsvBatchKind,
  type CsvBatchRecord,
  type CsvRowRecord,
  confirmationRefusal,
  csvBatchRefusals,
  csvConfirmationLimits,
} from "../domain/csv-batch.js";
import type { CsvUpload } from "../domain/csv-file.js";
import type { CsvReasonFields } from "../domain/csv-row.js";
import { afterFailure, isLocked } from "../domain/failure-lock.js";
import { newId } from "../domain/ids.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { verifyTotpCode } from "../domain/totp.js";
import {
  findTotpChallenge,
  insertCsvBatch,
  insertTotpChallenge,
  lockCsvBatch,
  markCsvBatchConfirmed,
  updateTotpChallenge,
} from "../storage/csv-batches.js";
import { lockDashboardUser, updateDashboardUser } from "../storage/dashboard-users.js";
import type { Tx } from "../storage/transactor.js";
import type { DashboardPrincipal } from "./dashboard-auth.js";
import type { FlowContext } from "./flow-context.js";

/**
 * The TOTP confirmation every kind of CSV batch shares (charges, docs/guide/csv-batches.md; the
 * subscription import, docs/guide/recurring-billing.md#importing-subscriptions-from-a-csv-file): a
 * challenge bound to the file's content, a code of the uploading user, 3 wrong codes in a row lock
 * confirmation for 15 minutes (docs/reference/contract.md#limits), and a batch applied once.
 */
export interface TotpChallenge {
  id: string;
  expiresAt: Date;
}

/** A row to store with its batch: its place is its index, its time the batch's. */
export type NewCsvRow = Omit<CsvRowRecord, "batchId" | "rowNumber" | "updatedAt">;

/** An uploaded row as stored: ready when it passed the file's rules, else invalid with its reasons. */
export function newCsvRow(
  cells: string[],
  check: { valid: true } | ({ valid: false } & CsvReasonFields),
  idempotencyKey = "",
): NewCsvRow {
  return {
    cells,
    state: check.valid ? "ready" : "invalid",
    reason: check.valid ? "" : check.reason,
    reasonJa: check.valid ? "" : check.reasonJa,
    customerId: null,
    idempotencyKey,
    chargeId: null,
    subscriptionId: null,
  };
}

/**
 * Stores an uploaded file's batch and rows (invalid ones with their reasons) with a TOTP challenge
 * bound to the file's content, in one transaction. Nothing is applied before confirmation.
 */
export async function storeUploadedBatch(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  file: { kind: CsvBatchKind; fileName: string; upload: CsvUpload; rows: readonly NewCsvRow[] },
  action: AuditAction,
): Promise<{ batch: CsvBatchRecord; challenge: TotpChallenge }> {
  const now = ctx.clock.now();
  const batch: CsvBatchRecord = {
    id: newId("bat"),
    kind: file.kind,
    merchantId: principal.merchant.id,
    userId: principal.userId,
    fileName: file.fileName.trim() || (file.kind === "charges" ? "batch.csv" : "subscriptions.csv"),
    contentHash: file.upload.contentHash,
    header: file.upload.header,
    rowCount: file.upload.rows.length,
    status: "uploaded",
    expiresAt: new Date(now.getTime() + csvConfirmationLimits.batchMs),
    confirmedAt: null,
    createdAt: now,
  };
  const challenge = await ctx.tx.write(async (trx) => {
    await insertCsvBatch(
      trx,
      batch,
      file.rows.map((row, i) => ({ ...row, batchId: batch.id, rowNumber: i + 1, updatedAt: now })),
    );
    const stored = await insertBatchChallenge(trx, principal, batch, now);
    await ctx.audit?.(trx, { action, target: batch.id, details: { file_name: batch.fileName, rows: batch.rowCount } });
    return stored;
  });
  return { batch, challenge };
}

/** A challenge for the batch, stored in the caller's transaction. */
export async function insertBatchChallenge(
  trx: Tx,
  principal: DashboardPrincipal,
  batch: CsvBatchRecord,
  now: Date,
): Promise<TotpChallenge> {
  const challenge = { id: newId("tch"), expiresAt: new Date(now.getTime() + csvConfirmationLimits.challengeMs) };
  await insertTotpChallenge(trx, {
    id: challenge.id,
    userId: principal.userId,
    batchId: batch.id,
    contentHash: batch.contentHash,
    failures: 0,
    expiresAt: challenge.expiresAt,
    usedAt: null,
    createdAt: now,
  });
  return challenge;
}

/** A new challenge for a batch still waiting for confirmation (its first one expired). */
export async function newBatchChallenge(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  batchId: string,
  kind: CsvBatchKind,
): Promise<TotpChallenge> {
  if (!principal.totpEnabled) throw csvBatchRefusals.totpNotEnabled();
  const now = ctx.clock.now();
  return ctx.tx.write(async (trx) => {
    const batch = await lockCsvBatch(ctx.tx, trx, principal.merchant.id, batchId, kind);
    if (!batch) throw csvBatchRefusals.batchNotFound();
    if (batch.status !== "uploaded")
      throw new RequestRefusal("precondition", "the batch is already confirmed", { reason: "CSV_BATCH_CONFIRMED" });
    if (now >= batch.expiresAt) throw csvBatchRefusals.batchExpired();
    return insertBatchChallenge(trx, principal, batch, now);
  });
}

/**
 * One transaction checks the batch, the challenge and the code, counts a wrong code, and on
 * success marks the code's time-step and the challenge used, marks the batch confirmed and lets
 * `apply` do the batch's work in the same transaction. A batch already confirmed (a second click,
 * a parallel confirmation that waited on the batch's lock) applies nothing again. A refusal is
 * thrown after its count is committed.
 */
export async function confirmBatchWithTotp(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  input: { batchId: string; challengeId: string; code: string },
  kind: CsvBatchKind,
  action: AuditAction,
  apply: (trx: Tx, batch: CsvBatchRecord, now: Date) => Promise<void>,
): Promise<void> {
  const now = ctx.clock.now();
  const refusal = await ctx.tx.write(async (trx): Promise<RequestRefusal | undefined> => {
    const batch = await lockCsvBatch(ctx.tx, trx, principal.merchant.id, input.batchId, kind);
    const user = await lockDashboardUser(ctx.tx, trx, principal.userId);
    if (!user) throw new RequestRefusal("unauthenticated", "the session's user no longer exists");
    const challenge = batch ? await findTotpChallenge(trx, input.challengeId, user.id, batch.id) : undefined;
    const lockedUntil = user.totpLockedUntil;
    const refused = confirmationRefusal(
      { batch, challenge, user: { totpEnabled: user.totpEnabled, lockedUntil } },
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
    await apply(trx, batch!, now);
    await ctx.audit?.(trx, {
      action,
      target: batch!.id,
      details: { file_name: batch!.fileName, rows: batch!.rowCount },
    });
    return undefined;
  });
  if (refusal) throw refusal;
}
