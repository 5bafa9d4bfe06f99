import {
  Code,
  ConnectError,
  type Interceptor,
  type StreamResponse,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { AsyncStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import type { CreateOffSessionPaymentAsyncResponse } from "../../gen/payments/v1/payment_service_pb.js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { clone, create } from "@bufbuild/protobuf";
import { limits } from "../domain/limits.js";
import { idempotencyKeyPath, isHttpGet, keyAt, setKeyAt } from "../domain/method-idempotency.js";
import { FurikomiError, toFurikomiError } from "./furikomi-error.js";
import { backoffDelayMs, type RetryPolicy } from "./retry-policy.js";

/** What a retry hook learns before the client waits and tries again. */
export interface RetryEvent {
  /** `payments.v1.PaymentService/CreateOffSessionPayment` */
  readonly method: string;
  /** The attempt that just failed (1 for the first). */
  readonly attempt: number;
  readonly error: FurikomiError;
  readonly delayMs: number;
  readonly idempotencyKey: string | undefined;
}

export interface RetryHooks {
  /** Called before each wait; awaited, so a test (or a log line) can act between attempts. */
  onRetry?: (event: RetryEvent) => void | Promise<void>;
  random?: () => number;
}

/**
 * One logical call, several attempts: a create call gets one idempotency key (the caller's, or
 * a fresh UUID) that every attempt carries, so a retry after a lost answer is answered from the
 * first attempt and never charges twice. Only retryable failures are retried, and only on calls
 * that are safe to send again (reads, and creates with their key); every failure leaves as a
 * FurikomiError.
 *
 * The server keeps every answer under its key, failures included, so a retry under the same key
 * would only replay a retryable payment failure (gateway unavailable, on-session internal error,
 * an async request that failed to start). That answer is definitive (nothing was charged or
 * created), so only then does the next attempt carry a key derived from the call's key
 * (`key~r2`, `key~r3`, …). Derived, not random: a caller repeating the whole call with its key
 * walks the same keys and is answered from the attempt that succeeded.
 */
export function createRetryInterceptor(policy: RetryPolicy, hooks: RetryHooks = {}): Interceptor {
  return (next) => async (req) => {
    if (req.stream) return next(req);
    const first = withIdempotencyKey(req);
    let keyed = first;
    let rotations = 0;
    const resendable = keyed.idempotencyKey !== undefined || isHttpGet(req.method);
    for (let attempt = 1; ; attempt++) {
      const call = { attempts: attempt, idempotencyKey: keyed.idempotencyKey };
      let error: FurikomiError;
      try {
        const response = await next(keyed.request);
        const notStarted = failedToStart(response, call);
        if (!notStarted?.retryable || !resendable || attempt >= policy.maxAttempts || req.signal.aborted)
          return response;
        error = notStarted;
      } catch (reason) {
        error = toFurikomiError(reason, call);
        if (!resendable || !error.retryable || attempt >= policy.maxAttempts || req.signal.aborted) throw error;
      }
      const delayMs = backoffDelayMs(policy, attempt, hooks.random);
      await hooks.onRetry?.({
        method: `${req.service.typeName}/${req.method.name}`,
        attempt,
        error,
        delayMs,
        idempotencyKey: keyed.idempotencyKey,
      });
      await sleep(delayMs, req.signal);
      // A catalogued code or FAILED_TO_START is the server's kept answer for that key, not a lost one.
      if (first.idempotencyKey !== undefined && (error.errorType !== undefined || error.asyncStatus !== undefined)) {
        keyed = withIdempotencyKey(req, derivedKey(first.idempotencyKey, ++rotations + 1));
      }
    }
  };
}

/**
 * An async request answered ASYNC_STATUS_FAILED_TO_START (HTTP 200), as a FurikomiError carrying
 * the charge's error type. docs/reference/contract.md routes terminal refusals there (customer not found or
 * inactive, not authorised, KYC), so it is retryable only as that error type is (docs/reference/contract.md#retry-guidance): GATEWAY_UNAVAILABLE, or CHARGE_FAILED whose message says it is temporary.
 */
function failedToStart(
  response: UnaryResponse | StreamResponse,
  call: { attempts: number; idempotencyKey: string | undefined },
): FurikomiError | undefined {
  if (response.stream || response.method.name !== "CreateOffSessionPaymentAsync") return undefined;
  const { status, requestId, chargeId, error } = response.message as CreateOffSessionPaymentAsyncResponse;
  if (status !== AsyncStatus.FAILED_TO_START) return undefined;
  const errorType = error?.code ? `ERROR_TYPE_${ErrorType[error.code]}` : "";
  const failure = new ConnectError(
    `ASYNC_STATUS_FAILED_TO_START: ${error?.message ?? "the request did not start"} (request ${requestId}, charge ${chargeId})`,
    Code.Unavailable,
    undefined,
    errorType ? [{ desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: errorType }) }] : [],
  );
  return new FurikomiError(failure, { ...call, asyncStatus: "ASYNC_STATUS_FAILED_TO_START" });
}

/** The request with its idempotency key filled in, when the method takes one. */
function withIdempotencyKey(
  req: UnaryRequest,
  replacement?: string,
): { request: UnaryRequest; idempotencyKey: string | undefined } {
  const path = idempotencyKeyPath(req.method);
  if (!path) return { request: req, idempotencyKey: undefined };
  const message = clone(req.method.input, req.message);
  const idempotencyKey =
    replacement || keyAt(message, path) || req.header.get("idempotency-key") || globalThis.crypto.randomUUID();
  setKeyAt(message, path, idempotencyKey);
  return { request: { ...req, message } as UnaryRequest, idempotencyKey };
}

const maxKeyLength = limits.idempotencyKeyLengthMax;

/** The key of the call's n-th definitive attempt, within the server's key length. */
function derivedKey(key: string, n: number): string {
  const suffix = `~r${n}`;
  return key.slice(0, maxKeyLength - suffix.length) + suffix;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
