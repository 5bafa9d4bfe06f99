import { ApiSource, ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { newPendingCharge, type NewChargeInput } from "./charge.js";
import type { ChargeSettlement } from "./charge-settlement.js";
import { errorTypeMessages } from "./payment-failure.js";
import type { ChargeRecord } from "./records.js";
import { limits } from "./limits.js";

/** What the bank answered a debit (the shape of the bank gateway port's result). */
export type BankAnswer =
  | { ok: true }
  | { ok: false; errorType: ErrorType; message: string; retryable: boolean; retryAfter?: Date };

/**
 * The engine's retry schedule (docs/guide/off-session.md): a retryable bank failure (gateway
 * unavailable, maintenance) is tried again after 2, 4, 8, 16 and 32 minutes — 6 attempts over
 * about an hour — before the charge fails with ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE.
 */
export const offSessionBankAttempts = limits.offSessionBankAttemptsMax;
const firstRetryDelayMs = limits.offSessionRetryFirstDelayMs;

/** The wait after attempt `attempt` (1-based) failed retryably. */
export function bankRetryDelayMs(attempt: number): number {
  return firstRetryDelayMs * 2 ** (attempt - 1);
}

/** A new off-session charge, PENDING (the flow fails it at once when it cannot start). */
export function newOffSessionCharge(
  input: Omit<NewChargeInput, "onSessionId" | "customerId"> & {
    customerId: string;
    apiSource: ApiSource.OFF_SESSION_SYNC | ApiSource.OFF_SESSION_ASYNC;
    /** The account its contract was approved with (null when it cannot start). */
    bankAccountId: string | null;
    /** Yen off the initial amount (a subscription period's discount). */
    discount?: number;
  },
  now: Date,
): ChargeRecord {
  return newPendingCharge({ ...input, onSessionId: null }, now);
}

/**
 * The answer as final (the synchronous call, or the engine's last attempt): a retryable
 * refusal that is not tried again fails the charge as GATEWAY_UNAVAILABLE.
 */
export function settlementOf(answer: BankAnswer): ChargeSettlement {
  if (answer.ok) return { status: ChargeStatus.SUCCESS };
  if (!answer.retryable) return { status: ChargeStatus.FAILURE, errorType: answer.errorType, message: answer.message };
  const errorType = ErrorType.PAYMENT_GATEWAY_UNAVAILABLE;
  return { status: ChargeStatus.FAILURE, errorType, message: errorTypeMessages[errorType] };
}

/**
 * The asynchronous engine: terminal refusals (insufficient funds, over limit, rejected) fail at
 * once; a retryable one is tried again on the schedule while attempts remain, and never before
 * the end of the bank's maintenance window when the bank named it.
 */
export function afterBankAnswer(answer: BankAnswer, attempt: number, now: Date): ChargeSettlement | { retryAt: Date } {
  if (!answer.ok && answer.retryable && attempt < offSessionBankAttempts) {
    const scheduled = now.getTime() + bankRetryDelayMs(attempt);
    return { retryAt: new Date(Math.max(scheduled, answer.retryAfter?.getTime() ?? 0)) };
  }
  return settlementOf(answer);
}
