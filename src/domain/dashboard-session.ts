import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { RequestRefusal } from "./request-refusal.js";
import type { RoleName } from "./dashboard-role.js";
import { limits } from "./limits.js";

/**
 * Dashboard sessions (docs/guide/dashboard.md): a session ends after 30 minutes without a
 * call, and 12 hours after sign-in whatever happens. The idle deadline moves at most once a
 * minute, so a busy page does not write on every call.
 */
export const sessionLimits = Object.freeze({
  idleMs: limits.dashboardSessionIdleMs,
  absoluteMs: limits.dashboardSessionAbsoluteMs,
  touchEveryMs: limits.dashboardSessionTouchEveryMs,
});

/**
 * At most ten passwords are checked per e-mail in a run (each counted before it is checked, a
 * success gives its own back); the tenth locks that e-mail's sign-in for 15 minutes, and a run is
 * forgotten 15 minutes after its last attempt.
 */
export const signInLimits = Object.freeze({ max: limits.signInPasswordsMax, lockMs: limits.signInLockMs });

export interface SessionTimes {
  idleExpiresAt: Date;
  absoluteExpiresAt: Date;
}

/** What every cookie session keeps (the dashboard's, the customer app's): only the CSRF token's hash. */
export interface CookieSession extends SessionTimes {
  csrfHash: string;
}

/** A dashboard session with its user and the user's merchant, as one read gives it. */
export interface DashboardSessionRecord extends CookieSession {
  idHash: string;
  /** When the user last gave a TOTP or recovery code in this session (step-up). */
  totpVerifiedAt: Date | null;
  userId: string;
  email: string;
  totpEnabled: boolean;
  role: RoleName;
  totpSetupRequired: boolean;
  merchantId: string;
  merchantName: string;
  dashboardTotpRequired: boolean;
  /** The access epoch the session began under (the user's current one, or the read finds no session). */
  userEpoch: number;
}

/** The pending second step of a sign-in (a user with TOTP gave the right password). */
export interface SignInChallengeRecord {
  idHash: string;
  userId: string;
  expiresAt: Date;
  createdAt: Date;
  /** The user's access epoch when the password was checked (domain/dashboard-user.ts). */
  userEpoch: number;
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

/** Only the hash of the CSRF token is stored, as for the session token. */
export const hashCsrfToken = hashSessionToken;

/** Whether the token the page sent is the one whose hash the session keeps (constant time). */
export function csrfTokenMatches(expectedHash: string, given: string): boolean {
  const a = Buffer.from(expectedHash);
  const b = Buffer.from(hashCsrfToken(given));
  return a.length === b.length && timingSafeEqual(a, b);
}

export const signedOut = () =>
  new RequestRefusal("unauthenticated", "not signed in, or the session expired: sign in again", {
    reason: "SESSION_REQUIRED",
  });

/** Wrong second-step codes (TOTP or recovery, at sign-in or step-up): five lock them for 15 minutes. */
export const totpAttemptLimits = Object.freeze({ max: limits.totpFailuresMax, lockMs: limits.totpLockMs });

/** How long the token between a sign-in's two steps, and a step-up, stay good. */
export const secondStepMs = limits.signInSecondStepMs;

/** Whether a session that last gave a code at `verifiedAt` may make a sensitive call at `now`. */
export function steppedUp(verifiedAt: Date | null, now: Date): boolean {
  return verifiedAt !== null && now.getTime() - verifiedAt.getTime() <= secondStepMs;
}

export const stepUpRequired = () =>
  new RequestRefusal(
    "precondition",
    "this action needs a TOTP code from the last 5 minutes: send one to VerifyStepUp, then try again",
    { reason: "STEP_UP_REQUIRED" },
  );

export const totpEnrollmentRequired = () =>
  new RequestRefusal(
    "precondition",
    "the merchant requires two-step verification: enrol TOTP first (BeginTotpEnrollment)",
    { reason: "TOTP_ENROLLMENT_REQUIRED" },
  );

/** Ten single-use recovery codes, 64 random bits each, shown as xxxx-xxxx-xxxx-xxxx. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: 10 }, () =>
    randomBytes(8)
      .toString("hex")
      .replace(/(.{4})(?!$)/g, "$1-"),
  );
}

/** A TOTP code is six digits; anything else the pattern lets through is a recovery code. */
export function isRecoveryCode(code: string): boolean {
  return !/^[0-9]{6}$/.test(code);
}

/** The stored form of a recovery code: SHA-256 of its hex digits, lower case, without dashes. */
export function hashRecoveryCode(code: string): string {
  return hashSessionToken(code.replace(/-/g, "").toLowerCase());
}

export const totpNotEnabled = () =>
  new RequestRefusal("precondition", "TOTP is not enabled for this user: enrol an authenticator app first", {
    reason: "TOTP_NOT_ENABLED",
  });
