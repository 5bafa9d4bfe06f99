import { Code, ConnectError } from "@connectrpc/connect";
import { codeToHttpStatus } from "@connectrpc/connect/protocol-connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import type { ErrorType, OnSessionPaymentErrorCode, PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { retryClassOf, type RetryClass } from "../domain/retry-guidance.js";

/** A catalogued code (docs/reference/contract.md#errors: "branch on them"): `ERROR_TYPE_…` or `ON_SESSION_PAYMENT_ERROR_CODE_…`. */
export type FurikomiErrorType =
  | `ERROR_TYPE_${Exclude<keyof typeof ErrorType, "UNSPECIFIED">}`
  | `ON_SESSION_PAYMENT_ERROR_CODE_${Exclude<keyof typeof OnSessionPaymentErrorCode, "UNSPECIFIED">}`;

/** The domain code that decided the HTTP status: `PAYMENT_ERROR_CODE_…`. */
export type FurikomiPaymentErrorCode = `PAYMENT_ERROR_CODE_${Exclude<keyof typeof PaymentErrorCode, "UNSPECIFIED">}`;

/** Protocol codes that say "try again" when no catalogued code says otherwise. */
const transientCodes: ReadonlySet<Code> = new Set([
  Code.Unavailable, // network failure, or the server going away
  Code.DeadlineExceeded,
  Code.Aborted, // the first attempt under the same idempotency key is still running
  Code.ResourceExhausted, // rate limited
]);

/**
 * Every failure of a furikomi client call: the catalogued code (`errorType`, from the server's
 * `google.rpc.ErrorInfo` detail), the domain `paymentErrorCode`, the HTTP status, and whether an
 * automatic retry is safe (`retryable`, from the retry guidance, docs/reference/contract.md#retry-guidance). Still a ConnectError,
 * so `code`, `rawMessage`, `metadata` and `findDetails` work as usual.
 *
 * @example
 * try {
 *   await furikomi.payments.createOffSessionPayment({ customerId, charge: { price: 1200 } });
 * } catch (e) {
 *   const error = toFurikomiError(e);
 *   if (error.errorType === "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS") askForAnotherPayment();
 * }
 */
export class FurikomiError extends ConnectError {
  /** The catalogued code, or undefined for a protocol-level failure (network, authentication, …). */
  readonly errorType: FurikomiErrorType | undefined;
  readonly paymentErrorCode: FurikomiPaymentErrorCode | undefined;
  /** The offending request field of a validation error (`buyer.email`). */
  readonly field: string | undefined;
  /** The status the plain HTTP path answers with (400, 404, 500, 503, …). */
  readonly httpStatus: number;
  /** `terminal`, `retryable` or `conditional` (read the message first); protocol failures by their code. */
  readonly retryClass: RetryClass;
  /** True when the client retries it by itself (the same idempotency key makes that safe). */
  readonly retryable: boolean;
  /** How many attempts the call made before giving up (1 when it was not retried). */
  readonly attempts: number;
  /** The idempotency key the last attempt of the call carried, if the method takes one. */
  readonly idempotencyKey: string | undefined;
  /** Set when a retry hook hears of an accepted async request that failed to start (an HTTP 200). */
  readonly asyncStatus: "ASYNC_STATUS_FAILED_TO_START" | undefined;

  constructor(
    cause: ConnectError,
    call: { attempts?: number; idempotencyKey?: string; asyncStatus?: "ASYNC_STATUS_FAILED_TO_START" } = {},
  ) {
    super(cause.rawMessage, cause.code, cause.metadata, undefined, cause);
    // The name stays "ConnectError": Connect recognises its errors by name and would wrap it otherwise.
    this.details = cause.details;
    const [info] = cause.findDetails(ErrorInfoSchema);
    this.errorType = (info?.reason || undefined) as FurikomiErrorType | undefined;
    this.paymentErrorCode = (info?.metadata.paymentErrorCode || undefined) as FurikomiPaymentErrorCode | undefined;
    this.field = info?.metadata.field || undefined;
    this.httpStatus = codeToHttpStatus(cause.code);
    this.retryClass = this.errorType
      ? retryClassOf(this.errorType, cause.rawMessage)
      : transientCodes.has(cause.code)
        ? "retryable"
        : "terminal";
    this.retryable = this.retryClass === "retryable";
    this.attempts = call.attempts ?? 1;
    this.idempotencyKey = call.idempotencyKey;
    this.asyncStatus = call.asyncStatus;
  }

  /** Plain `instanceof` (ConnectError's own check accepts any ConnectError by its name). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof was asked about (a subclass too).
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/** Any thrown value as a FurikomiError (a network failure becomes `unavailable`, retryable). */
export function toFurikomiError(reason: unknown, call?: { attempts?: number; idempotencyKey?: string }): FurikomiError {
  if (reason instanceof FurikomiError && call === undefined) return reason;
  return new FurikomiError(ConnectError.from(reason, Code.Unavailable), call);
}
