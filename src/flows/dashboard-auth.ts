import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { normalizeEmail } from "../domain/customer.js";
import {
  hashCsrfToken,
  hashRecoveryCode,
  isRecoveryCode,
  secondStepMs,
  steppedUp,
  stepUpRequired,
  totpAttemptLimits,
  totpNotEnabled,
  hashSessionToken,
  newCsrfToken,
  newSessionTimes,
  newSessionToken,
  signedOut,
  signInLimits,
} from "../domain/dashboard-session.js";
import { newId } from "../domain/ids.js";
import { decoyPasswordHash, hashPassword, passwordProblem, verifyPassword } from "../domain/password-hash.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { verifyTotpCode } from "../domain/totp.js";
import {
  deleteDashboardSession,
  deleteExpiredSessionsOfUser,
  findDashboardSession,
  findDashboardUserByEmail,
  findSignInChallenge,
  insertSignInChallenge,
  setMerchantTotpRequired,
  setSessionTotpVerified,
  takeSignInChallenge,
  useRecoveryCode,
  insertDashboardSession,
  insertDashboardUser,
  lockDashboardUser,
  setSessionIdleExpiry,
  updateDashboardUser,
} from "../storage/dashboard-users.js";
import { findMerchant } from "../storage/merchants.js";
import { isUniqueViolation, type Tx } from "../storage/transactor.js";
import { checkCookieSession } from "./cookie-session.js";
import { lockedOut, release, reserve, wrongCode } from "./sign-in-attempts.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { recordAudit } from "./audit.js";
import { commandLine, type AuditActor } from "../domain/audit.js";
import type { RoleName } from "../domain/dashboard-role.js";
import { userExists } from "../domain/invitation.js";
import { accessStillGranted, type DashboardUserRecord } from "../domain/dashboard-user.js";

/** The signed-in dashboard user of a call (set by the dashboard session interceptor). */
export interface DashboardPrincipal {
  readonly userId: string;
  readonly email: string;
  readonly merchant: MerchantPrincipal;
  readonly totpEnabled: boolean;
  /** The merchant requires TOTP of every user. */
  readonly merchantRequiresTotp: boolean;
  /** When this session last gave a TOTP or recovery code (step-up), if ever. */
  readonly totpVerifiedAt: Date | null;
  readonly csrfToken: string;
  /** Hash of the session cookie, to end this session. */
  readonly sessionHash: string;
  /** owner | admin | operator | viewer (docs/guide/dashboard.md#roles). */
  readonly role: string;
  /** Invited, or their TOTP was reset: the user enrols TOTP before anything else. */
  readonly totpSetupRequired: boolean;
  /** The user's access epoch this session began under (docs/reference/security.md#access-that-ends). */
  readonly userEpoch: number;
}

/** Where a call came from, for the audit log. */
export interface CallOrigin {
  readonly clientAddress: string;
  readonly userAgent: string;
}

/** A new session, or (for a user with TOTP) the token of the sign-in's second step. */
export type SignInOutcome = { totpRequired: false; session: NewSession } | { totpRequired: true; signInToken: string };

export interface NewSession {
  sessionToken: string;
  principal: DashboardPrincipal;
  absoluteExpiresAt: Date;
}

/**
 * `furikomi users add`: a dashboard user of a merchant (an owner unless told), password hashed
 * with scrypt. For operators and recovery; people invite each other in the dashboard.
 */
export async function createDashboardUser(
  ctx: FlowContext,
  input: { merchantId: string; email: string; password: string; role?: RoleName },
): Promise<{ user_id: string; merchant_id: string; email: string; role: RoleName }> {
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new RequestRefusal("invalid", `${input.email} is not an e-mail address`);
  const problem = passwordProblem(input.password);
  if (problem) throw new RequestRefusal("invalid", problem);
  if (!(await findMerchant(ctx.tx.db, input.merchantId)))
    throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `merchant ${input.merchantId} not found`);
  const role = input.role ?? "owner";
  const user = newUser({
    merchantId: input.merchantId,
    email,
    passwordHash: await hashPassword(input.password, ctx.config.passwordHashCost),
    role,
    now: ctx.clock.now(),
  });
  try {
    await ctx.tx.write(async (trx) => {
      await insertDashboardUser(trx, user);
      await recordAudit(
        ctx,
        trx,
        { merchantId: input.merchantId, ...commandLine },
        {
          action: "user.add",
          target: user.id,
          details: { email, role },
        },
      );
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw userExists(email);
    throw error;
  }
  return { user_id: user.id, merchant_id: input.merchantId, email, role };
}

/** A new user: no TOTP yet. */
export function newUser(input: {
  merchantId: string;
  email: string;
  passwordHash: string;
  role: RoleName;
  now: Date;
  totpSetupRequired?: boolean;
}): DashboardUserRecord {
  return {
    id: newId("usr"),
    merchantId: input.merchantId,
    email: input.email,
    passwordHash: input.passwordHash,
    totpSecret: "",
    totpEnabled: false,
    totpLastStep: 0,
    totpFailures: 0,
    totpLockedUntil: null,
    createdAt: input.now,
    updatedAt: input.now,
    role: input.role,
    totpSetupRequired: input.totpSetupRequired ?? false,
    removedAt: null,
    accessEpoch: 0,
  };
}

const wrongCredentials = () =>
  new RequestRefusal("unauthenticated", "wrong e-mail or password", { reason: "SIGN_IN_FAILED" });

/**
 * The first step of a sign-in, the password. The attempt is counted, by e-mail, before the
 * password is checked, in the transaction that decides whether it may be checked at all, and
 * given back on success: at most ten passwords are checked per e-mail per run, however many arrive
 * at once. An unknown e-mail costs the same hash and counts the same as a known one. A user
 * without TOTP gets a session (its token goes in the cookie, its hash and its CSRF token's hash in
 * the database); a user with TOTP gets a token for the second step (CompleteSignIn).
 */
export async function signIn(
  ctx: FlowContext,
  input: { email: string; password: string },
  origin: CallOrigin,
): Promise<SignInOutcome> {
  const now = ctx.clock.now();
  const attemptKey = `email:${normalizeEmail(input.email)}`;
  const { lockedUntil } = await reserve(ctx, attemptKey, now, signInLimits);
  if (lockedUntil) throw lockedOut("too many wrong passwords: sign-in is locked", lockedUntil, now, "SIGN_IN_LOCKED");
  const user = await findDashboardUserByEmail(ctx.tx.db, normalizeEmail(input.email));
  const matches = await verifyPassword(
    input.password,
    user?.passwordHash ?? (await decoyPasswordHash(ctx.config.passwordHashCost)),
  );
  if (!user || !matches) {
    if (user) await auditFailedSignIn(ctx, user, origin, "password");
    throw wrongCredentials();
  }
  if (!user.totpEnabled) {
    return {
      totpRequired: false,
      session: await startSession(ctx, user, now, null, origin, (trx) => release(ctx, trx, attemptKey, signInLimits)),
    };
  }
  const signInToken = newSessionToken();
  await ctx.tx.write(async (trx) => {
    await requireAccessStill(ctx, trx, user, wrongCredentials);
    await release(ctx, trx, attemptKey, signInLimits);
    await insertSignInChallenge(trx, {
      idHash: hashSessionToken(signInToken),
      userId: user.id,
      expiresAt: new Date(now.getTime() + secondStepMs),
      createdAt: now,
      userEpoch: user.accessEpoch,
    });
  });
  return { totpRequired: true, signInToken };
}

/**
 * The second step for a user with TOTP: the token from SignIn (valid 5 minutes) and a TOTP or
 * recovery code. Wrong codes are counted per user before they are checked (five lock the second
 * step for 15 minutes); the token is used up by the right code.
 */
export async function completeSignIn(
  ctx: FlowContext,
  input: { signInToken: string; code: string },
  origin: CallOrigin,
): Promise<NewSession> {
  const now = ctx.clock.now();
  const challengeHash = hashSessionToken(input.signInToken);
  const pending = await findSignInChallenge(ctx.tx.db, challengeHash);
  if (!pending || now >= pending.expiresAt) throw signInAgain();
  const attemptKey = `totp:${pending.userId}`;
  const { lockedUntil, attemptsLeft } = await reserve(ctx, attemptKey, now, totpAttemptLimits);
  if (lockedUntil) throw lockedOut("too many wrong codes: codes are refused", lockedUntil, now, "TOTP_LOCKED");
  const checked = await ctx.tx.write(async (trx) => {
    const found = await lockDashboardUser(ctx.tx, trx, pending.userId);
    // Removed, reset or re-roled since the password was checked: this sign-in ended with it.
    if (!found || !accessStillGranted(found, { accessEpoch: pending.userEpoch })) throw signInAgain();
    if (!(await acceptSecondFactor(trx, found, input.code, now))) return { user: found, accepted: false };
    if (!(await takeSignInChallenge(ctx.tx, trx, challengeHash))) throw signInAgain();
    return { user: found, accepted: true };
  });
  if (!checked.accepted) {
    await auditFailedSignIn(ctx, checked.user, origin, "totp");
    throw wrongCode(attemptsLeft);
  }
  return startSession(ctx, checked.user, now, now, origin, (trx) => release(ctx, trx, attemptKey, totpAttemptLimits));
}

/**
 * Step-up: a TOTP or recovery code lets this session make sensitive calls for 5 minutes. Counted
 * with the sign-in's second step (five wrong codes lock both).
 */
export async function verifyStepUp(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  code: string,
  origin: CallOrigin,
): Promise<Date> {
  const now = ctx.clock.now();
  if (!principal.totpEnabled) throw totpNotEnabled();
  const attemptKey = `totp:${principal.userId}`;
  const { lockedUntil, attemptsLeft } = await reserve(ctx, attemptKey, now, totpAttemptLimits);
  if (lockedUntil) throw lockedOut("too many wrong codes: codes are refused", lockedUntil, now, "TOTP_LOCKED");
  const accepted = await ctx.tx.write(async (trx) => {
    const user = await lockDashboardUser(ctx.tx, trx, principal.userId);
    if (!user || !accessStillGranted(user, { accessEpoch: principal.userEpoch })) throw signedOut();
    if (!(await acceptSecondFactor(trx, user, code, now))) return false;
    await release(ctx, trx, attemptKey, totpAttemptLimits);
    await setSessionTotpVerified(trx, principal.sessionHash, now.toISOString());
    return true;
  });
  if (!accepted) {
    // Audited like a wrong sign-in code: five of them lock the user's codes, so each leaves a trace.
    await auditFailedSignIn(ctx, principalUser(principal), origin, "step_up");
    throw wrongCode(attemptsLeft);
  }
  return new Date(now.getTime() + secondStepMs);
}

/** Sensitive calls (API keys, webhook settings, refunds, the TOTP requirement) of a user with TOTP need a recent code. */
export function requireStepUp(ctx: FlowContext, principal: DashboardPrincipal): void {
  if (principal.totpEnabled && !steppedUp(principal.totpVerifiedAt, ctx.clock.now())) throw stepUpRequired();
}

/** The owner's setting: every dashboard user of the merchant must enrol TOTP. Changed by a user with TOTP, stepped up. */
export async function setTotpRequirement(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  required: boolean,
): Promise<void> {
  if (!principal.totpEnabled) throw totpNotEnabled();
  requireStepUp(ctx, principal);
  await ctx.tx.write(async (trx) => {
    await setMerchantTotpRequired(trx, principal.merchant.id, required);
    await ctx.audit?.(trx, { action: "totp_requirement.update", target: principal.merchant.id, details: { required } });
  });
}

/** A sensitive call of an owner's (the team): TOTP enrolled, and a code from the last 5 minutes. */
export function requireTotpStepUp(ctx: FlowContext, principal: DashboardPrincipal): void {
  if (!principal.totpEnabled) throw totpNotEnabled();
  requireStepUp(ctx, principal);
}

/**
 * A wrong password or code for a known user (the sign-in's password or second step, or a step-up),
 * in the log of the user's merchant (its own transaction: nothing else changed).
 */
async function auditFailedSignIn(
  ctx: FlowContext,
  user: Pick<DashboardUserRecord, "id" | "merchantId" | "email">,
  origin: CallOrigin,
  step: string,
) {
  await ctx.tx.write((trx) =>
    recordAudit(ctx, trx, actorOf(user, origin), { action: "sign_in.failed", target: user.id, details: { step } }),
  );
}

function actorOf(user: Pick<DashboardUserRecord, "id" | "merchantId" | "email">, origin: CallOrigin): AuditActor {
  return { merchantId: user.merchantId, userId: user.id, email: user.email, ...origin };
}

const principalUser = (principal: DashboardPrincipal) => ({
  id: principal.userId,
  merchantId: principal.merchant.id,
  email: principal.email,
});

/**
 * Inside a write: the user, read again with its row locked, is still on the team under the access
 * epoch `seen` was read with (a removal, reset or role change commits either before this, and is
 * seen, or after it, and ends what this writes). Answers the user as it is now.
 */
async function requireAccessStill(
  ctx: FlowContext,
  trx: Tx,
  seen: Pick<DashboardUserRecord, "id" | "accessEpoch">,
  refusal: () => Error,
): Promise<DashboardUserRecord> {
  const current = await lockDashboardUser(ctx.tx, trx, seen.id);
  if (!current || !accessStillGranted(current, seen)) throw refusal();
  return current;
}

/**
 * The session of a sensitive write (an API key) still counts, checked inside the write's
 * transaction with the user's row locked: a key made by a user removed a moment before cannot exist.
 */
export async function requireLiveSession(ctx: FlowContext, trx: Tx, principal: DashboardPrincipal): Promise<void> {
  await requireAccessStill(ctx, trx, { id: principal.userId, accessEpoch: principal.userEpoch }, signedOut);
}

/**
 * Checks a second factor inside the caller's transaction (the user's row locked): a TOTP code
 * (its time-step then used up) or an unused recovery code (then used).
 */
async function acceptSecondFactor(trx: Tx, user: DashboardUserRecord, code: string, now: Date): Promise<boolean> {
  if (!user.totpEnabled) return false;
  if (isRecoveryCode(code)) return useRecoveryCode(trx, user.id, hashRecoveryCode(code), now.toISOString());
  const verdict = verifyTotpCode(user.totpSecret, code, now, user.totpLastStep);
  if (!verdict.accepted) return false;
  await updateDashboardUser(trx, user.id, { totpLastStep: verdict.step, updatedAt: now });
  return true;
}

/**
 * A new session for `user`, written with `alsoWrite` (which gives back the attempt, or creates the
 * invited user) and the audit log's sign_in entry.
 */
export async function startSession(
  ctx: FlowContext,
  user: DashboardUserRecord,
  now: Date,
  totpVerifiedAt: Date | null,
  origin: CallOrigin,
  alsoWrite: (trx: Tx) => Promise<void>,
): Promise<NewSession> {
  const merchant = await findMerchant(ctx.tx.db, user.merchantId);
  if (!merchant) throw wrongCredentials();
  const sessionToken = newSessionToken();
  const sessionHash = hashSessionToken(sessionToken);
  const csrfToken = newCsrfToken();
  const times = newSessionTimes(now);
  const current = await ctx.tx.write(async (trx) => {
    await alsoWrite(trx);
    // After the slow hash, in the session's own transaction: removed, reset or re-roled meanwhile ends it here.
    const latest = await requireAccessStill(ctx, trx, user, wrongCredentials);
    await deleteExpiredSessionsOfUser(trx, user.id, now.toISOString());
    await insertDashboardSession(trx, {
      idHash: sessionHash,
      userId: user.id,
      csrfHash: hashCsrfToken(csrfToken),
      createdAt: now,
      ...times,
      totpVerifiedAt,
      userEpoch: latest.accessEpoch,
    });
    await recordAudit(ctx, trx, actorOf(user, origin), { action: "sign_in", target: user.id });
    return latest;
  });
  return {
    sessionToken,
    absoluteExpiresAt: times.absoluteExpiresAt,
    principal: {
      userId: user.id,
      email: user.email,
      merchant: { id: merchant.id, name: merchant.name },
      totpEnabled: user.totpEnabled,
      merchantRequiresTotp: merchant.dashboardTotpRequired,
      totpVerifiedAt,
      csrfToken,
      sessionHash,
      role: current.role,
      totpSetupRequired: current.totpSetupRequired,
      userEpoch: current.accessEpoch,
    },
  };
}

const signInAgain = () =>
  new RequestRefusal("unauthenticated", "the sign-in expired or was used: sign in again", {
    reason: "SIGN_IN_EXPIRED",
  });

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
  const session = await checkCookieSession(ctx, await findDashboardSession(ctx.tx.db, sessionHash), csrfToken, {
    delete: (trx) => deleteDashboardSession(trx, sessionHash),
    extendIdle: (trx, until) => setSessionIdleExpiry(trx, sessionHash, until),
  });
  return {
    userId: session.userId,
    email: session.email,
    merchant: { id: session.merchantId, name: session.merchantName },
    totpEnabled: session.totpEnabled,
    merchantRequiresTotp: session.dashboardTotpRequired,
    totpVerifiedAt: session.totpVerifiedAt,
    // Only its hash is stored: the token is the one the page sent, which matched.
    csrfToken,
    sessionHash,
    role: session.role,
    totpSetupRequired: session.totpSetupRequired,
    userEpoch: session.userEpoch,
  };
}

export async function signOut(ctx: FlowContext, principal: DashboardPrincipal): Promise<void> {
  await ctx.tx.write((trx) => deleteDashboardSession(trx, principal.sessionHash));
}
