import type { Interceptor } from "@connectrpc/connect";
import { RequestRefusal } from "../domain/request-refusal.js";
import { merchantKey } from "../api/request-context.js";
import { TokenBuckets } from "./token-bucket.js";

/**
 * Per-caller rate limit (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST): a merchant's API key or
 * dashboard session shares one bucket per merchant; a hosted page call one per payment-link token.
 * Runs after authentication, so only known callers spend tokens. Real time, not the service clock:
 * moving a manual sandbox clock must not refill a bucket.
 */
export function createRateLimitInterceptor(limits: { ratePerSecond: number; burst: number }): Interceptor {
  if (limits.ratePerSecond <= 0) return (next) => next;
  const buckets = new TokenBuckets(limits.ratePerSecond, limits.burst);
  return (next) => async (req) => {
    const merchant = req.contextValues.get(merchantKey);
    const token = (req.message as { token?: unknown } | undefined)?.token;
    const caller = merchant
      ? `merchant:${merchant.id}`
      : typeof token === "string" && token
        ? `page:${token}`
        : undefined;
    if (caller) {
      const retryAfterSeconds = buckets.take(caller, performance.now());
      if (retryAfterSeconds) {
        throw new RequestRefusal(
          "rate_limited",
          `rate limit exceeded: retry after ${retryAfterSeconds} s`,
          "RATE_LIMITED",
          retryAfterSeconds,
        );
      }
    }
    return next(req);
  };
}
