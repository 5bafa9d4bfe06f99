import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { normalizeEmail } from "../domain/customer.js";
import {
  csrfTokenMatches,
  extendedIdleExpiry,
  hashSessionToken,
  newCsrfToken,
  newSessionTimes,
  newSessionToken,
  sessionIsLive,
  signedOut,
  signInLimits,
} from "../domain/dashboard-session.js";
import { afterFailure, isLocked } from "../domain/failure-lock.js";
import { newId } from "../domain/ids.js";
import { decoyPasswordHash, hashPassword, passwordProblem, verifyPassword } from "../domain/password-hash.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { newTotpSecret, totpUri, verifyTotpCode } from "../domain/totp.js";
import {
  deleteDashboardSession,
  deleteExpiredSessionsOfUser,
  findDashboardSession,
  findDashboardUserByEmail,
  insertDashboardSession,
  insertDashboardUser,
  lockDashboardUser,
  setSessionIdleExpiry,
  updateDashboardUser,
} from "../storage/dashboard-users.js";
import { findMerchant } from "../storage/merchants.js";
import { isUniqueViolation } from "../storage/transactor.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";

/** The signed-in dashboard user of a call (set by the dashboard session interceptor). */
export interface DashboardPrincipal {
  readonly userId: string;
  readonly email: string;
  readonly merchant: MerchantPrincipal;
  readonly totpEnabled: boolean;
  readonly csrfToken: string;
  /** Hash of the session cookie, to end this session. */
  readonly sessionHash: string;
}

/** `furikomi users create`: a dashboard user of a merchant, password hashed with scrypt. */
export async function createDashboardUser(
  ctx: FlowContext,
  input: { merchantId: string; email: string; password: string },
): Promise<{ user_id: string; merchant_id: string; email: string }> {
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new RequestRefusal("invalid", `${input.email} is not an e-mail address`);
  const problem = passwordProblem(input.password);
  if (problem) throw new RequestRefusal("invalid", problem);
  if (!(await findMerchant(ctx.tx.db, input.merchantId)))
    throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `merchant ${input.merchantId} not found`);
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now().toISOString();
  const id = newId("usr");
  try {
    await ctx.tx.write((trx) =>
      insertDashboardUser(trx, {
        id,
        merchant_id: input.merchantId,
        email,
        email_normalized: normalizeEmail(email),
        password_hash: passwordHash,
        failed_sign_ins: 0,
        sign_in_locked_until: null,
        totp_secret: "",
        totp_enabled: 0,
        totp_last_step: 0,
        totp_failures: 0,
        totp_locked_until: null,
        created_at: now,
        updated_at: now,
      }),
    );
  } catch (error) {
    if (isUniqueViolation(error))
      throw new RequestRefusal("conflict", `a dashboard user with e-mail ${email} already exists`);
    throw error;
  }
  return { user_id: id, merchant_id: input.merchantId, email };
}

const wrongCredentials = () => new RequestRefusal("unauthenticated", "wrong e-mail or password", "SIGN_IN_FAILED");

/**
 * Signs a user in: a new session (its token goes in the cookie, its hash in the database) and
 * its CSRF token. An unknown e-mail costs the same hash as a known one; ten wrong passwords in a
 * row lock the account's sign-in for 15 minutes.
 */
export async function signIn(
  ctx: FlowContext,
  input: { email: string; password: string },
): Promise<{ sessionToken: string; principal: DashboardPrincipal; absoluteExpiresAt: Date }> {
  const user = await findDashboardUserByEmail(ctx.tx.db, normalizeEmail(input.email));
  if (!user) {
    await verifyPassword(input.password, await decoyPasswordHash());
    throw wrongCredentials();
  }
  const now = ctx.clock.now();
  if (isLocked({ lockedUntil: user.sign_in_locked_until ? new Date(user.sign_in_locked_until) : null }, now)) {
    throw new RequestRefusal(
      "rate_limited",
      `too many wrong passwords: sign-in is locked until ${user.sign_in_locked_until}`,
      "SIGN_IN_LOCKED",
    );
  }
  if (!(await verifyPassword(input.password, user.password_hash))) {
    await ctx.tx.write(async (trx) => {
      const current = await lockDashboardUser(ctx.tx, trx, user.id);
      if (!current) return;
      const next = afterFailure(
        {
          failures: current.failed_sign_ins,
          lockedUntil: current.sign_in_locked_until ? new Date(current.sign_in_locked_until) : null,
        },
        now,
        signInLimits,
      );
      await updateDashboardUser(trx, user.id, {
        failed_sign_ins: next.failures,
        sign_in_locked_until: next.lockedUntil?.toISOString() ?? null,
        updated_at: now.toISOString(),
      });
    });
    throw wrongCredentials();
  }
  const sessionToken = newSessionToken();
  const sessionHash = hashSessionToken(sessionToken);
  const csrfToken = newCsrfToken();
  const times = newSessionTimes(now);
  const merchant = await findMerchant(ctx.tx.db, user.merchant_id);
  if (!merchant) throw wrongCredentials();
  await ctx.tx.write(async (trx) => {
    await updateDashboardUser(trx, user.id, {
      failed_sign_ins: 0,
      sign_in_locked_until: null,
      updated_at: now.toISOString(),
    });
    await deleteExpiredSessionsOfUser(trx, user.id, now.toISOString());
    await insertDashboardSession(trx, {
      id_hash: sessionHash,
      user_id: user.id,
      csrf_token: csrfToken,
      created_at: now.toISOString(),
      idle_expires_at: times.idleExpiresAt.toISOString(),
      absolute_expires_at: times.absoluteExpiresAt.toISOString(),
    });
  });
  return {
    sessionToken,
    absoluteExpiresAt: times.absoluteExpiresAt,
    principal: {
      userId: user.id,
      email: user.email,
      merchant: { id: merchant.id, name: merchant.name },
      totpEnabled: user.totp_enabled === 1,
      csrfToken,
      sessionHash,
    },
  };
}

/**
 * The user of a session cookie, checking the CSRF token the page sends (x-csrf-token): an
 * unknown, expired or idle session, or a token that does not match, is refused.
 */
export async function authenticateSession(
  ctx: FlowContext,
  sessionToken: string,
  csrfToken: string,
): Promise<DashboardPrincipal> {
  const sessionHash = hashSessionToken(sessionToken);
  const session = await findDashboardSession(ctx.tx.db, sessionHash);
  if (!session) throw signedOut();
  const now = ctx.clock.now();
  const times = {
    idleExpiresAt: new Date(session.idle_expires_at),
    absoluteExpiresAt: new Date(session.absolute_expires_at),
  };
  if (!sessionIsLive(times, now)) {
    await ctx.tx.write((trx) => deleteDashboardSession(trx, sessionHash));
    throw signedOut();
  }
  if (!csrfTokenMatches(session.csrf_token, csrfToken)) {
    throw new RequestRefusal("unauthenticated", "missing or wrong x-csrf-token header", "CSRF_TOKEN_INVALID");
  }
  const extended = extendedIdleExpiry(times, now);
  if (extended) await ctx.tx.write((trx) => setSessionIdleExpiry(trx, sessionHash, extended.toISOString()));
  return {
    userId: session.user_id,
    email: session.email,
    merchant: { id: session.merchant_id, name: session.merchant_name },
    totpEnabled: session.totp_enabled === 1,
    csrfToken: session.csrf_token,
    sessionHash,
  };
}

export async function signOut(ctx: FlowContext, principal: DashboardPrincipal): Promise<void> {
  await ctx.tx.write((trx) => deleteDashboardSession(trx, principal.sessionHash));
}

const totpAlreadyEnabled = () =>
  new RequestRefusal("precondition", "TOTP is already enabled for this user", "TOTP_ALREADY_ENABLED");

/** Starts TOTP enrolment: a new secret, kept until a first code confirms it. */
export async function beginTotpEnrollment(
  ctx: FlowContext,
  principal: DashboardPrincipal,
): Promise<{ secret: string; uri: string }> {
  const secret = newTotpSecret();
  const now = ctx.clock.now().toISOString();
  await ctx.tx.write(async (trx) => {
    const user = await lockDashboardUser(ctx.tx, trx, principal.userId);
    if (!user) throw signedOut();
    if (user.totp_enabled === 1) throw totpAlreadyEnabled();
    await updateDashboardUser(trx, user.id, { totp_secret: secret, updated_at: now });
  });
  return { secret, uri: totpUri(secret, principal.email) };
}

/** Confirms enrolment with a first code from the app; that code's time-step is then used up. */
export async function confirmTotpEnrollment(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  code: string,
): Promise<void> {
  const now = ctx.clock.now();
  await ctx.tx.write(async (trx) => {
    const user = await lockDashboardUser(ctx.tx, trx, principal.userId);
    if (!user) throw signedOut();
    if (user.totp_enabled === 1) throw totpAlreadyEnabled();
    if (!user.totp_secret)
      throw new RequestRefusal(
        "precondition",
        "start the enrolment first (BeginTotpEnrollment)",
        "TOTP_ENROLLMENT_NOT_STARTED",
      );
    const verdict = verifyTotpCode(user.totp_secret, code, now, user.totp_last_step);
    if (!verdict.accepted) throw new RequestRefusal("invalid", "invalid TOTP code", "TOTP_CODE_INVALID");
    await updateDashboardUser(trx, user.id, {
      totp_enabled: 1,
      totp_last_step: verdict.step,
      totp_failures: 0,
      updated_at: now.toISOString(),
    });
  });
}
