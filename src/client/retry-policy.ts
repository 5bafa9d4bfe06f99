/** How a client call retries a retryable failure. */
export interface RetryPolicy {
  /** Attempts per call, the first included (1 = never retry). */
  readonly maxAttempts: number;
  /** The ceiling of the first wait; each later ceiling doubles, up to maxBackoffMs. */
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
}

export const defaultRetryPolicy: RetryPolicy = Object.freeze({
  maxAttempts: 4,
  initialBackoffMs: 250,
  maxBackoffMs: 10_000,
});

/**
 * The wait before retry number `retry` (1 for the first retry): exponential backoff with full
 * jitter, a uniform draw between 0 and min(maxBackoffMs, initialBackoffMs · 2^(retry-1)), so
 * clients that failed together do not come back together.
 */
export function backoffDelayMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/** A policy with every field checked: a bad option fails when the client is made, not on the first failure. */
export function retryPolicyOf(options: Partial<RetryPolicy>): RetryPolicy {
  const policy = { ...defaultRetryPolicy, ...stripUndefined(options) };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1)
    throw new RangeError(`maxAttempts must be a whole number ≥ 1, got ${policy.maxAttempts}`);
  if (!(policy.initialBackoffMs >= 0) || !(policy.maxBackoffMs >= policy.initialBackoffMs)) {
    throw new RangeError(
      `backoff must satisfy 0 ≤ initialBackoffMs ≤ maxBackoffMs, got ${policy.initialBackoffMs} and ${policy.maxBackoffMs}`,
    );
  }
  return Object.freeze(policy);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
