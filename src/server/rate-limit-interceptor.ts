import type { DescMethod } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { accessOf } from "../api/dashboard-access.js";
import { clientAddressBucket } from "../domain/client-address.js";
import { normalizeEmail } from "../domain/customer.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { clientAddressKey, merchantKey } from "../api/request-context.js";
import { TokenBuckets } from "./token-bucket.js";
import { customerAppService, customerPrincipalKey, customerSignInMethods } from "../api/customer-app-session.js";

export interface RateLimits {
  readonly ratePerSecond: number;
  readonly burst: number;
}

export interface SignInRateLimits {
  readonly perAddressPerMinute: number;
  readonly perEmailPerMinute: number;
}

/**
 * The bucket prefix of a sign-in step ("" dashboard, "app:" customer app), or undefined for any
 * other call. The dashboard's are the calls its .proto declares `dashboard_sign_in` (signing in,
 * and an invitation's link).
 */
function signInScopeOf(service: string, method: DescMethod): string | undefined {
  if (service === "payments.v1.DashboardService" && accessOf(method).kind === "sign_in") return "";
  if (service === customerAppService && customerSignInMethods.has(method.name)) return "app:";
  return undefined;
}

/** A bucket set, or none when its rate is 0 (the limit is off). */
function bucketsOf(ratePerSecond: number, burst: number): TokenBuckets | undefined {
  return ratePerSecond > 0 ? new TokenBuckets(ratePerSecond, burst) : undefined;
}

/**
 * Per-caller rate limit (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST): a merchant's API key or
 * dashboard session shares one bucket per merchant; a hosted page call one per payment-link token;
 * a customer-app session one per e-mail. Runs after authentication, so only known callers spend
 * tokens. Dashboard and customer-app sign-in, which have no caller yet, spend from a bucket of
 * the client address and one of the e-mail they name
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
      throw new RequestRefusal("rate_limited", `rate limit exceeded: retry after ${retryAfterSeconds} s`, {
        reason: "RATE_LIMITED",
        retryAfterSeconds,
      });
    }
  };
  return (next) => async (req) => {
    // The customer app's buckets are its own: a customer's e-mail may also be a dashboard user's.
    const scope = signInScopeOf(req.service.typeName, req.method);
    if (scope !== undefined) {
      // One bucket per machine, not per source address it can pick (domain/client-address.ts).
      spend(addresses, `${scope}${clientAddressBucket(req.contextValues.get(clientAddressKey))}`);
      const email = (req.message as { email?: unknown }).email;
      if (typeof email === "string") spend(emails, `${scope}${normalizeEmail(email)}`);
      return next(req);
    }
    const customer = req.contextValues.get(customerPrincipalKey);
    if (customer) spend(callers, `customer:${customer.email}`);
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
