/**
 * The retry guidance table (docs/reference/contract.md#retry-guidance), keyed by catalogued code:
 * `retryable` failures are retried with backoff under the same idempotency key, `conditional`
 * ones only after a human read the message, `terminal` ones never. Shared by the server (a
 * retryable failure is not kept for replay, so the retry runs again) and the client.
 */
export type RetryClass = "retryable" | "conditional" | "terminal";

const retryable: ReadonlySet<string> = new Set([
  "ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE",
  "ON_SESSION_PAYMENT_ERROR_CODE_INTERNAL_ERROR",
  "ASYNC_STATUS_FAILED_TO_START",
]);

const conditional: ReadonlySet<string> = new Set([
  "ERROR_TYPE_PAYMENT_CHARGE_FAILED",
  "ON_SESSION_PAYMENT_ERROR_CODE_STRATEGY_EXECUTION_FAILED",
]);

/**
 * The class of a catalogued code; every code the table does not name is terminal. A conditional
 * code whose message says the problem is temporary ("read the message first") is retryable.
 */
export function retryClassOf(code: string, message = ""): RetryClass {
  if (retryable.has(code)) return "retryable";
  if (conditional.has(code)) return saysTemporary(message) ? "retryable" : "conditional";
  return "terminal";
}

/** "… a temporary error …", but not "… not a temporary error". */
function saysTemporary(message: string): boolean {
  return /temporar/i.test(message) && !/\bnot (a )?temporar/i.test(message);
}
