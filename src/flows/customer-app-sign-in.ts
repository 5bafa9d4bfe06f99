import { signInCodeMessage, signInCodeOwner } from "../domain/customer-app-sign-in.js";
import { normalizeEmail } from "../domain/customer.js";
import {
  hashCsrfToken,
  hashSessionToken,
  newCsrfToken,
  newSessionTimes,
  newSessionToken,
} from "../domain/dashboard-session.js";
import {
  deleteCustomerAppSession,
  deleteEndedCustomerAppSessions,
  findCustomerAppSession,
  insertCustomerAppSession,
  setCustomerAppSessionIdleExpiry,
} from "../storage/customer-app-sessions.js";
import { customersOfEmail } from "../storage/customer-records.js";
import type { JobOutcome } from "../storage/jobs.js";
import { checkCookieSession } from "./cookie-session.js";
import { checkEmailedCode, mailEmailedCode, sendEmailedCode } from "./emailed-code.js";
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
export function sendSignInCode(ctx: FlowContext, email: string): Promise<{ expiresAt: Date; resendAvailableAt: Date }> {
  return sendEmailedCode(ctx, { owner: signInCodeOwner(email), email, mailJob: "sign-in-code-mail" });
}

/**
 * The job behind SendSignInCode: mails the code only when a merchant knows the e-mail (so the page
 * cannot be used to mail strangers), then forgets it (flows/emailed-code.ts).
 */
export function runSignInCodeMailJob(ctx: FlowContext, codeId: string): Promise<JobOutcome> {
  return mailEmailedCode(ctx, codeId, {
    worthSending: async (email) => (await customersOfEmail(ctx.tx.db, email)).length > 0,
    message: signInCodeMessage,
  });
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
    const { verified, attemptsLeft } = await checkEmailedCode(ctx, trx, signInCodeOwner(email), code);
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
