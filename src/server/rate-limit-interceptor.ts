import type { Interceptor } from "@connectrpc/connect";
import { normalizeEmail } from "../domain/customer.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { clientAddressKey, merchantKey } from "../api/request-context.js";
import { TokenBuckets } from "./token-bucket.js";

export interface RateLimits {
  readonly ratePerSecond: number;
  readonly burst: number;
}

export interface SignInRateLimits {
  readonly perAddressPerMinute: number;
  readonly perEmailPerMinute: number;
}

/** The two steps of a dashboard sign-in (the e-mail is named in the first). */
const signInMethods = new Set(["SignIn", "CompleteSignIn"]);

/** A bucket set, or none when its rate is 0 (the limit is off). */
function bucketsOf(ratePerSecond: number, burst: number): TokenBuckets | undefined {
  return ratePerSecond > 0 ? new TokenBuckets(ratePerSecond, burst) : undefined;
}

/**
 * Per-caller rate limit (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST): a merchant's API key or
 * dashboard session shares one bucket per merchant; a hosted page call one per payment-link token.
 * Runs after authentication, so only known callers spend tokens. Dashboard sign-in, which has no
 * caller yet, spends from a bucket of its client address and (SignIn) one of the e-mail it names
 * (SIGN_IN_RATE_LIMIT_PER_ADDRESS, SIGN_IN_RATE_LIMIT_PER_EMAIL, per minute). Real time, not the
 * service clock: moving a manual sandbox clock must not refill a bucket.
 */
export function createRateLimitInterceptor(limits: RateLimits, signIn?: SignInRateLimits): Interceptor {
  const callers = bucketsOf(limits.ratePerSecond, limits.burst);
  const addresses = signIn && bucketsOf(signIn.perAddressPerMinute / 60, signIn.perAddressPerMinute);
  const emails = signIn && bucketsOf(signIn.perEmailPerMinute / 60, signIn.perEmailPerMinute);
  const spend = (buckets: TokenBuckets | undefined, caller: string) => {
    const retryAfterSeconds = buckets?.take(caller, performance.now());
    if (retryAfterSeconds) {
      throw new RequestRefusal(
        "rate_limited",
        `rate limit exceeded: retry after ${retryAfterSeconds} s`,
        "RATE_LIMITED",
        retryAfterSeconds,
      );
    }
  };
  return (next) => async (req) => {
    if (req.service.typeName === "payments.v1.DashboardService" && signInMethods.has(req.method.name)) {
      spend(addresses, req.contextValues.get(clientAddressKey));
      const email = (req.message as { email?: unknown }).email;
      if (typeof email === "string") spend(emails, normalizeEmail(email));
      return next(req);
    }
    const merchant = req.contextValues.get(merchantKey);
    const token = (req.message as { token?: unknown } | undefined)?.token;
    const caller = merchant
      ? `merchant:${merchant.id}`
      : typeof token === "string" && token
        ? `page:${token}`
        : undefined;
    if (caller) spend(callers, caller);
    return next(req);
  };
}
