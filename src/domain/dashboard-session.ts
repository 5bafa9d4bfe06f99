import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { RequestRefusal } from "./request-refusal.js";

/**
 * Dashboard sessions (docs/guide/dashboard.md): a session ends after 30 minutes without a
 * call, and 12 hours after sign-in whatever happens. The idle deadline moves at most once a
 * minute, so a busy page does not write on every call.
 */
export const sessionLimits = Object.freeze({ idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000, touchEveryMs: 60_000 });

/** Ten wrong passwords in a row lock the account's sign-in for 15 minutes. */
export const signInLimits = Object.freeze({ max: 10, lockMs: 15 * 60_000 });

export interface SessionTimes {
  idleExpiresAt: Date;
  absoluteExpiresAt: Date;
}

export function newSessionTimes(now: Date): SessionTimes {
  return {
    idleExpiresAt: new Date(now.getTime() + sessionLimits.idleMs),
    absoluteExpiresAt: new Date(now.getTime() + sessionLimits.absoluteMs),
  };
}

export function sessionIsLive(times: SessionTimes, now: Date): boolean {
  return now < times.idleExpiresAt && now < times.absoluteExpiresAt;
}

/** The idle deadline after a call at `now`, when it moved enough to be worth writing. */
export function extendedIdleExpiry(times: SessionTimes, now: Date): Date | undefined {
  const next = new Date(Math.min(now.getTime() + sessionLimits.idleMs, times.absoluteExpiresAt.getTime()));
  return next.getTime() - times.idleExpiresAt.getTime() >= sessionLimits.touchEveryMs ? next : undefined;
}

/** The session id the cookie carries (256 bits); only its hash is stored. */
export function newSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The CSRF token: sent back by the page in x-csrf-token on every call but SignIn. */
export function newCsrfToken(): string {
  return randomBytes(32).toString("base64url");
}

export function csrfTokenMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const signedOut = () =>
  new RequestRefusal("unauthenticated", "not signed in, or the session expired: sign in again", "SESSION_REQUIRED");
