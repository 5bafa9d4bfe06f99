import { limits } from "./limits.js";
import { secondsMs } from "./duration.js";
/**
 * The webhook retry schedule (docs/guide/webhooks.md): after the n-th failed attempt the next one
 * comes after a random wait between 1 s and the n-th ceiling (full jitter), so receivers coming
 * back from an outage are not hit by every sender at once. Retries go on until an attempt fails
 * 3 days or more after the first attempt of the cycle; then the event is FAILED.
 */
export const retryCeilingsMs: readonly number[] = Object.freeze(
  [30, 60, 120, 300, 600, 1_800, 3_600, 7_200, 14_400, 28_800].map(secondsMs),
);

/** Retries last at least this long from the first attempt; the last one lands within 8 h after. */
export const retryWindowMs = limits.webhookRetryWindowMs;

const minimumWaitMs = limits.webhookRetryWaitMinMs;

/** The longest wait after the n-th failed attempt (n from 1): the table, then 8 h each. */
export function retryCeilingMs(failedAttempts: number): number {
  return retryCeilingsMs[Math.min(failedAttempts, retryCeilingsMs.length) - 1];
}

/**
 * When to try again after a failed attempt, or undefined when the retry window is over.
 * `random` is a number in [0, 1) (Math.random in production; fixed in tests).
 */
export function nextRetryAt(input: {
  failedAttempts: number;
  windowStartedAt: Date;
  failedAt: Date;
  random: number;
}): Date | undefined {
  if (input.failedAt.getTime() - input.windowStartedAt.getTime() >= retryWindowMs) return undefined;
  const waitMs = Math.max(minimumWaitMs, Math.floor(input.random * retryCeilingMs(input.failedAttempts)));
  return new Date(input.failedAt.getTime() + waitMs);
}
