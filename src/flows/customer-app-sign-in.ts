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
import { enqueueJob, type JobOutcome } from "../storage/jobs.js";
import { deleteSignInCodeMail, findSignInCodeMail, insertSignInCodeMail } from "../storage/sign-in-code-mail.js";
import { operatorMailbox } from "../domain/mailbox-message.js";
import {
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
 * Sends a sign-in code to the e-mail (docs/guide/customer-app.md#signing-in). The same work and the
 * same answer whatever the e-mail: the code is stored and its message queued (an outbox row and a
 * job, in one transaction), and nothing here asks whether a merchant knows the address, nor waits
 * for the mail server (docs/reference/security.md#customer-app-sign-in). One send per 30 seconds, 10 a day.
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
    await insertSignInCodeMail(trx, {
      codeId: record.id,
      email: normalizeEmail(email),
      code,
      expiresAt: record.expiresAt,
      createdAt: now,
    });
    await enqueueJob(trx, { kind: "sign-in-code-mail", refId: record.id, runAt: now, now });
    return record;
  });
  ctx.wake("jobs");
  return { expiresAt: stored.expiresAt, resendAvailableAt: resendAvailableAt(stored.createdAt, stored.createdAt) };
}

/**
 * The job behind SendSignInCode: mails the code when a merchant knows the e-mail (so the page
 * cannot be used to mail strangers), then forgets it. The message belongs to no merchant: in the
 * sandbox it lands in the operator's mailbox, which no merchant's key reads
 * (docs/guide/sandbox.md#the-mailbox). A mail server that fails is tried again (the job's backoff)
 * until the code expires.
 */
export async function runSignInCodeMailJob(ctx: FlowContext, codeId: string): Promise<JobOutcome> {
  const mail = await findSignInCodeMail(ctx.tx.db, codeId);
  if (!mail) return { done: true };
  if (ctx.clock.now() < mail.expiresAt && (await customersOfEmail(ctx.tx.db, mail.email)).length > 0) {
    await ctx.notifier.send({
      merchantId: operatorMailbox,
      to: mail.email,
      ...signInCodeMessage(mail.code),
      code: mail.code,
      sentAt: mail.createdAt,
    });
  }
  await ctx.tx.write((trx) => deleteSignInCodeMail(trx, codeId));
  return { done: true };
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
