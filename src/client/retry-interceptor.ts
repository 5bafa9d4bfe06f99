import type { Interceptor, UnaryRequest } from "@connectrpc/connect";
import { clone } from "@bufbuild/protobuf";
import { idempotencyKeyField, isHttpGet } from "../domain/method-idempotency.js";
import { toFurikomiError, type FurikomiError } from "./furikomi-error.js";
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
 */
export function createRetryInterceptor(policy: RetryPolicy, hooks: RetryHooks = {}): Interceptor {
  return (next) => async (req) => {
    if (req.stream) return next(req);
    const keyed = withIdempotencyKey(req);
    const resendable = keyed.idempotencyKey !== undefined || isHttpGet(req.method);
    for (let attempt = 1; ; attempt++) {
      try {
        return await next(keyed.request);
      } catch (reason) {
        const error = toFurikomiError(reason, { attempts: attempt, idempotencyKey: keyed.idempotencyKey });
        if (!resendable || !error.retryable || attempt >= policy.maxAttempts || req.signal.aborted) throw error;
        const delayMs = backoffDelayMs(policy, attempt, hooks.random);
        await hooks.onRetry?.({ method: `${req.service.typeName}/${req.method.name}`, attempt, error, delayMs, idempotencyKey: keyed.idempotencyKey });
        await sleep(delayMs, req.signal);
      }
    }
  };
}

/** The request with its idempotency key filled in, when the method takes one. */
function withIdempotencyKey(req: UnaryRequest): { request: UnaryRequest; idempotencyKey: string | undefined } {
  const field = idempotencyKeyField(req.method);
  if (!field) return { request: req, idempotencyKey: undefined };
  const message = clone(req.method.input, req.message) as Record<string, unknown>;
  const given = message[field.localName];
  const idempotencyKey = typeof given === "string" && given !== "" ? given : req.header.get("idempotency-key") || globalThis.crypto.randomUUID();
  message[field.localName] = idempotencyKey;
  return { request: { ...req, message } as UnaryRequest, idempotencyKey };
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
