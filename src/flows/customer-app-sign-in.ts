import {
  codesOfLastDay,
  customerSignInRules,
  signInCodeMessage,
  signInCodeOwner,
  tooManySignInCodes,
} from "../domain/customer-app-sign-in.js";
import { normalizeEmail } from "../domain/customer.js";
import {
  hashCsrfToken,
  hashSessionToken,
  newCsrfToken,
  newSessionTimes,
  newSessionToken,
} from "../domain/dashboard-session.js";
import {
  codeMatches,
  codeUnusableReason,
  storedOneTimeCode,
  newOneTimeCode,
  oneTimeCodeRules,
  resendAvailableAt,
} from "../domain/one-time-code.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import {
  deleteCustomerAppSession,
  deleteEndedCustomerAppSessions,
  findCustomerAppSession,
  insertCustomerAppSession,
  setCustomerAppSessionIdleExpiry,
} from "../storage/customer-app-sessions.js";
import { customersOfEmail } from "../storage/customer-records.js";
import {
  deleteOneTimeCode,
  deleteOneTimeCodesBefore,
  insertOneTimeCode,
  lockCodesOfLink,
  saveCodeAttempt,
} from "../storage/one-time-codes.js";
import { checkCookieSession } from "./cookie-session.js";
import type { FlowContext } from "./flow-context.js";

/** The signed-in customer of a CustomerAppService call: the e-mail their code proved. */
export interface CustomerPrincipal {
  readonly email: string;
  readonly csrfToken: string;
  readonly sessionHash: string;
  readonly expiresAt: Date;
}

export interface NewCustomerSession {
  readonly sessionToken: string;
  readonly principal: CustomerPrincipal;
}

/**
 * Sends a sign-in code to the e-mail (docs/guide/customer-app.md#signing-in). The code is stored
 * and the answer is the same whether or not a merchant knows the e-mail; only a known one is sent
 * mail, so the page cannot be used to mail strangers. One send per 30 seconds, 10 a day.
 */
export async function sendSignInCode(
  ctx: FlowContext,
  email: string,
): Promise<{ expiresAt: Date; resendAvailableAt: Date }> {
  const owner = signInCodeOwner(email);
  const code = newOneTimeCode();
  const stored = await ctx.tx.write(async (trx) => {
    // Two first sends for one e-mail find no row to lock: the key makes the second wait and see the first's code.
    await ctx.tx.lockKey(trx, owner);
    const now = ctx.clock.now();
    const codes = codesOfLastDay(await lockCodesOfLink(ctx.tx, trx, owner), now);
    const availableAt = resendAvailableAt(codes[0]?.createdAt, now);
    if (availableAt > now)
      throw new RequestRefusal(
        "rate_limited",
        `a code was just sent; ask for a new one after ${availableAt.toISOString()}`,
        {
          reason: "SIGN_IN_CODE_TOO_SOON",
          retryAfterSeconds: Math.ceil((availableAt.getTime() - now.getTime()) / 1000),
        },
      );
    if (codes.length >= customerSignInRules.maxCodesPerDay) throw tooManySignInCodes();
    await deleteOneTimeCodesBefore(trx, owner, new Date(now.getTime() - customerSignInRules.dayMs).toISOString());
    const record = storedOneTimeCode(code, now);
    await insertOneTimeCode(trx, owner, record);
    return record;
  });
  const [first] = await customersOfEmail(ctx.tx.db, email);
  if (first) {
    try {
      // One message; the sandbox files it in the mailbox of the merchant that knew the e-mail first.
      await ctx.notifier.send({
        merchantId: first.merchantId,
        to: normalizeEmail(email),
        ...signInCodeMessage(code),
        code,
        sentAt: stored.createdAt,
      });
    } catch (error) {
      // Not delivered: forget it, so the customer may ask again at once.
      await ctx.tx.write((trx) => deleteOneTimeCode(trx, stored.id));
      throw error;
    }
  }
  return { expiresAt: stored.expiresAt, resendAvailableAt: resendAvailableAt(stored.createdAt, stored.createdAt) };
}

/**
 * Checks the newest code of the e-mail (10 minutes, 5 attempts, accepted once); a right one starts
 * a session bound to the e-mail.
 */
export async function verifySignInCode(
  ctx: FlowContext,
  email: string,
  code: string,
): Promise<{ verified: boolean; attemptsLeft: number; session?: NewCustomerSession }> {
  return ctx.tx.write(async (trx) => {
    const now = ctx.clock.now();
    const [latest] = await lockCodesOfLink(ctx.tx, trx, signInCodeOwner(email));
    if (!latest) throw new RequestRefusal("precondition", "no code has been sent yet; ask for one");
    const unusable = codeUnusableReason(latest, now);
    if (unusable) throw new RequestRefusal("precondition", unusable);
    const verified = codeMatches(latest, code);
    const attempt = { ...latest, attempts: latest.attempts + 1, usedAt: verified ? now : null };
    await saveCodeAttempt(trx, attempt);
    const attemptsLeft = Math.max(0, oneTimeCodeRules.maxAttempts - attempt.attempts);
    if (!verified) return { verified, attemptsLeft };
    const sessionToken = newSessionToken();
    const csrfToken = newCsrfToken();
    const times = newSessionTimes(now);
    const sessionHash = hashSessionToken(sessionToken);
    await deleteEndedCustomerAppSessions(trx, now.toISOString());
    await insertCustomerAppSession(trx, {
      idHash: sessionHash,
      emailNormalized: normalizeEmail(email),
      csrfHash: hashCsrfToken(csrfToken),
      createdAt: now,
      ...times,
    });
    return {
      verified,
      attemptsLeft,
      session: {
        sessionToken,
        principal: { email: normalizeEmail(email), csrfToken, sessionHash, expiresAt: times.absoluteExpiresAt },
      },
    };
  });
}

/** The customer of a session cookie, checking the x-csrf-token header as the dashboard does. */
export async function authenticateCustomerSession(
  ctx: FlowContext,
  sessionToken: string,
  csrfToken: string,
): Promise<CustomerPrincipal> {
  const sessionHash = hashSessionToken(sessionToken);
  const session = await checkCookieSession(ctx, await findCustomerAppSession(ctx.tx.db, sessionHash), csrfToken, {
    delete: (trx) => deleteCustomerAppSession(trx, sessionHash),
    extendIdle: (trx, until) => setCustomerAppSessionIdleExpiry(trx, sessionHash, until),
  });
  return { email: session.emailNormalized, csrfToken, sessionHash, expiresAt: session.absoluteExpiresAt };
}

export async function signOutCustomer(ctx: FlowContext, principal: CustomerPrincipal): Promise<void> {
  await ctx.tx.write((trx) => deleteCustomerAppSession(trx, principal.sessionHash));
}
