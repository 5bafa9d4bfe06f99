import { createHash } from "node:crypto";
import { ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { csvReason, type CsvReason, type CsvReasonFields } from "./csv-row.js";
import { totpNotEnabled } from "./dashboard-session.js";
import { isLocked } from "./failure-lock.js";
import { errorTypeMessages, errorTypeMessagesJa } from "./payment-failure.js";
import { RequestRefusal } from "./request-refusal.js";
import { limits } from "./limits.js";

/**
 * A CSV batch from upload to result (docs/guide/csv-batches.md). Rows are stored in a state;
 * what the result says of a charged row is read from its charge, so it is never stale.
 *
 *   invalid   failed validation at upload (final, reason set)
 *   ready     valid, waiting for the batch's confirmation
 *   queued    confirmed and resolved to a customer; a csv-row job will charge it
 *   submitted handed to the off-session engine: charge_id set, the charge tells the outcome
 *   failed    resolution or the start of the charge failed (final, reason set)
 */
export type CsvRowState = "invalid" | "ready" | "queued" | "submitted" | "failed";

/** Batch status as the dashboard shows it. */
export type CsvBatchStatus = "uploaded" | "running" | "completed";

/**
 * What a batch holds: off-session charges (docs/guide/csv-batches.md), or subscriptions to create
 * (docs/guide/recurring-billing.md#importing-subscriptions-from-a-csv-file). Both share the upload,
 * the preview and the TOTP confirmation.
 */
export type CsvBatchKind = "charges" | "subscriptions";

/** A batch as stored: "completed" is never stored, it is read from the rows. */
export interface CsvBatchRecord {
  id: string;
  kind: CsvBatchKind;
  merchantId: string;
  userId: string;
  fileName: string;
  contentHash: string;
  header: string[];
  rowCount: number;
  status: Exclude<CsvBatchStatus, "completed">;
  expiresAt: Date;
  confirmedAt: Date | null;
  createdAt: Date;
}

export interface CsvRowRecord {
  batchId: string;
  rowNumber: number;
  cells: string[];
  state: CsvRowState;
  /** English, as the result's Reason column writes it. */
  reason: string;
  /** The same reason in Japanese ("" for rows stored before it was kept). */
  reasonJa: string;
  customerId: string | null;
  idempotencyKey: string;
  chargeId: string | null;
  /** sub-* created by an imported row (kind subscriptions). */
  subscriptionId: string | null;
  updatedAt: Date;
}

/** A row with the status, error and time of its charge (null: no charge yet). */
export interface CsvRowWithCharge extends CsvRowRecord {
  chargeStatus: ChargeStatus | null;
  chargeErrorType: ErrorType | null;
  chargeUpdatedAt: Date | null;
}

/** The TOTP challenge that confirms a batch, bound to the file's content. */
export interface CsvTotpChallengeRecord {
  id: string;
  userId: string;
  batchId: string;
  contentHash: string;
  failures: number;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

/** Status column of the result CSV. */
export type CsvRowStatus = "succeeded" | "failed" | "processing";

export const csvChargeReasons: Readonly<Record<"initiateFailed" | "stillProcessing" | "keyReused", CsvReason>> =
  Object.freeze({
    initiateFailed: { en: "Failed to initiate payment", ja: "決済を開始できませんでした" },
    stillProcessing: { en: "Payment is still processing", ja: "決済は処理中です" },
    keyReused: {
      en: "idempotency_key was already used for a different payment",
      ja: "この idempotency_key は別の決済で使われています",
    },
  });

/** The TOTP confirmation of a batch (docs/reference/contract.md#limits). */
export const csvConfirmationLimits = Object.freeze({
  /** A challenge is answered within 5 minutes (a new one can be asked for while the batch lives). */
  challengeMs: limits.csvBatchChallengeMs,
  /** An unconfirmed batch lives 30 minutes. */
  batchMs: limits.csvBatchUnconfirmedMs,
  /** docs/reference/contract.md#limits: 3 failures lock confirmation for 15 minutes. */
  lock: Object.freeze({ max: limits.csvBatchConfirmationFailuresMax, lockMs: limits.csvBatchConfirmationLockMs }),
});

/** The refusals of upload and confirmation; each carries a stable reason in an ErrorInfo detail. */
export const csvBatchRefusals = Object.freeze({
  totpNotEnabled,
  invalidCode: (attemptsLeft: number, replayed = false) =>
    new RequestRefusal(
      "invalid",
      `${replayed ? "this TOTP code was already used; wait for the next one" : "invalid TOTP code"} (${attemptsLeft} attempt${attemptsLeft === 1 ? "" : "s"} left before a 15-minute lock)`,
      { reason: "TOTP_CODE_INVALID", facts: { attemptsLeft: String(attemptsLeft) } },
    ),
  challengeExpired: () =>
    new RequestRefusal("precondition", "the TOTP challenge expired or was used: ask for a new one", {
      reason: "TOTP_CHALLENGE_EXPIRED",
    }),
  locked: (until: Date) =>
    new RequestRefusal(
      "rate_limited",
      `TOTP challenge locked after ${csvConfirmationLimits.lock.max} failed codes until ${until.toISOString()}`,
      { reason: "TOTP_CHALLENGE_LOCKED" },
    ),
  challengeNotFound: () =>
    new RequestRefusal("not_found", "TOTP challenge not found", { reason: "TOTP_CHALLENGE_NOT_FOUND" }),
  batchNotFound: () => new RequestRefusal("not_found", "batch not found", { reason: "CSV_BATCH_NOT_FOUND" }),
  batchExpired: () =>
    new RequestRefusal("precondition", "the batch expired before it was confirmed: upload the file again", {
      reason: "CSV_BATCH_EXPIRED",
    }),
});

export interface ConfirmationFacts {
  batch: { status: string; expiresAt: Date; contentHash: string } | undefined;
  /** The challenge, when it is this user's and this batch's. */
  challenge: { expiresAt: Date; usedAt: Date | null; contentHash: string } | undefined;
  user: { totpEnabled: boolean; lockedUntil: Date | null };
}

/**
 * Why a confirmation is refused before its code is looked at, or "confirmed" when the batch was
 * already confirmed (a repeated click answers the batch, charging nothing again), or undefined:
 * check the code.
 */
export function confirmationRefusal(facts: ConfirmationFacts, now: Date): RequestRefusal | "confirmed" | undefined {
  const { batch, challenge, user } = facts;
  if (!batch) return csvBatchRefusals.batchNotFound();
  if (batch.status !== "uploaded") return "confirmed";
  if (now >= batch.expiresAt) return csvBatchRefusals.batchExpired();
  if (!challenge || challenge.contentHash !== batch.contentHash) return csvBatchRefusals.challengeNotFound();
  if (!user.totpEnabled) return csvBatchRefusals.totpNotEnabled();
  if (user.lockedUntil && isLocked(user, now)) return csvBatchRefusals.locked(user.lockedUntil);
  if (challenge.usedAt || now >= challenge.expiresAt) return csvBatchRefusals.challengeExpired();
  return undefined;
}

/**
 * The idempotency key a row is charged under: its own idempotency_key, or one derived from the
 * batch's content and the row's place in it — so the same file uploaded again, or a row's job
 * run again after a crash, replays the first charge instead of making a second.
 */
export function csvRowIdempotencyKey(contentHash: string, rowNumber: number, given: string | undefined): string {
  if (given) return given;
  return "csv-" + createHash("sha256").update(`${contentHash}:${rowNumber}`).digest("base64url");
}

/** The Reason of a charge that failed: the ErrorType's default message (docs/reference/contract.md#csv-batch-reasons, group 3). */
export function chargeFailureReason(errorType: ErrorType): CsvReason {
  if (errorType === ErrorType.PAYMENT_CUSTOMER_NOT_FOUND) return csvReason("customerIdNotFound");
  if (errorType === ErrorType.PAYMENT_CUSTOMER_INACTIVE) return csvReason("customerInactive");
  const known = errorTypeMessages[errorType] === undefined ? ErrorType.PAYMENT_CHARGE_FAILED : errorType;
  return { en: errorTypeMessages[known], ja: errorTypeMessagesJa[known] };
}

/** As a row stores a reason. */
export function reasonFields(reason: CsvReason): CsvReasonFields {
  return { reason: reason.en, reasonJa: reason.ja };
}

/** `reason` is set for failed rows, and "Payment is still processing" for rows not final yet; `reasonJa` likewise. */
export interface CsvRowOutcome extends CsvReasonFields {
  status: CsvRowStatus;
}

/**
 * What the result says of a row. A refunded or cancelled charge was charged: the batch did its
 * part (refunds show on the charge).
 */
export function csvRowOutcome(
  row: { state: CsvRowState } & CsvReasonFields,
  charge: { status: ChargeStatus; errorType: ErrorType } | undefined,
): CsvRowOutcome {
  switch (row.state) {
    case "invalid":
    case "failed":
      return { status: "failed", reason: row.reason, reasonJa: row.reasonJa || row.reason };
    case "ready":
    case "queued":
      return { status: "processing", ...reasonFields(csvChargeReasons.stillProcessing) };
    case "submitted":
      if (!charge) return { status: "processing", ...reasonFields(csvChargeReasons.stillProcessing) };
      if (charge.status === ChargeStatus.FAILURE)
        return { status: "failed", ...reasonFields(chargeFailureReason(charge.errorType)) };
      if (
        charge.status === ChargeStatus.SUCCESS ||
        charge.status === ChargeStatus.REFUNDED ||
        charge.status === ChargeStatus.CANCELLED
      ) {
        return { status: "succeeded", reason: "", reasonJa: "" };
      }
      return { status: "processing", ...reasonFields(csvChargeReasons.stillProcessing) };
  }
}

export interface CsvBatchProgress {
  status: CsvBatchStatus;
  succeeded: number;
  failed: number;
  processing: number;
}

export function csvBatchProgress(confirmed: boolean, outcomes: readonly CsvRowOutcome[]): CsvBatchProgress {
  const count = (status: CsvRowStatus) => outcomes.filter((o) => o.status === status).length;
  const processing = confirmed ? count("processing") : 0;
  return {
    status: !confirmed ? "uploaded" : processing > 0 ? "running" : "completed",
    succeeded: count("succeeded"),
    failed: count("failed"),
    processing,
  };
}
