import { codesOfLastDay, customerSignInRules, tooManySignInCodes } from "../domain/customer-app-sign-in.js";
import { normalizeEmail } from "../domain/customer.js";
import {
  codeMatches,
  codeUnusableReason,
  newOneTimeCode,
  oneTimeCodeRules,
  resendAvailableAt,
  storedOneTimeCode,
} from "../domain/one-time-code.js";
import { operatorMailbox } from "../domain/mailbox-message.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { enqueueJob, type JobKind, type JobOutcome } from "../storage/jobs.js";
import {
  deleteOneTimeCodesBefore,
  insertOneTimeCode,
  lockCodesOfLink,
  saveCodeAttempt,
} from "../storage/one-time-codes.js";
import { deleteSignInCodeMail, findSignInCodeMail, insertSignInCodeMail } from "../storage/sign-in-code-mail.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";

/**
 * A code e-mailed to prove an address (the customer app's sign-in, the dashboard's sign-up):
 * stored as its hash under `owner`, its message queued in the sign-in code outbox with the
 * `mailJob` that sends it, in one transaction; nothing waits for the mail server. One send per
 * 30 seconds and 10 a day per owner (docs/reference/security.md#customer-app-sign-in).
 */
export async function sendEmailedCode(
  ctx: FlowContext,
  input: { owner: string; email: string; mailJob: JobKind },
): Promise<{ expiresAt: Date; resendAvailableAt: Date }> {
  const code = newOneTimeCode();
  const stored = await ctx.tx.write(async (trx) => {
    // Two first sends for one owner find no row to lock: the key makes the second wait and see the first's code.
    await ctx.tx.lockKey(trx, input.owner);
    const now = ctx.clock.now();
    const codes = codesOfLastDay(await lockCodesOfLink(ctx.tx, trx, input.owner), now);
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
    await deleteOneTimeCodesBefore(trx, input.owner, new Date(now.getTime() - customerSignInRules.dayMs).toISOString());
    const record = storedOneTimeCode(code, now);
    await insertOneTimeCode(trx, input.owner, record);
    await insertSignInCodeMail(trx, {
      codeId: record.id,
      email: normalizeEmail(input.email),
      code,
      expiresAt: record.expiresAt,
      createdAt: now,
    });
    await enqueueJob(trx, { kind: input.mailJob, refId: record.id, runAt: now, now });
    return record;
  });
  ctx.wake("jobs");
  return { expiresAt: stored.expiresAt, resendAvailableAt: resendAvailableAt(stored.createdAt, stored.createdAt) };
}

/**
 * Checks `code` against the owner's newest code (10 minutes, 5 attempts, accepted once), in the
 * caller's transaction, counting the attempt. The caller commits a wrong attempt too.
 */
export async function checkEmailedCode(
  ctx: FlowContext,
  trx: Tx,
  owner: string,
  code: string,
): Promise<{ verified: boolean; attemptsLeft: number }> {
  const [latest] = await lockCodesOfLink(ctx.tx, trx, owner);
  if (!latest) throw new RequestRefusal("precondition", "no code has been sent yet; ask for one");
  const now = ctx.clock.now();
  const unusable = codeUnusableReason(latest, now);
  if (unusable) throw new RequestRefusal("precondition", unusable);
  const verified = codeMatches(latest, code);
  const attempt = { ...latest, attempts: latest.attempts + 1, usedAt: verified ? now : null };
  await saveCodeAttempt(trx, attempt);
  return { verified, attemptsLeft: Math.max(0, oneTimeCodeRules.maxAttempts - attempt.attempts) };
}

/**
 * The job that mails a queued code, then forgets it: sent while the code is valid and
 * `worthSending` says so, else dropped. The message belongs to no merchant: in the sandbox it
 * lands in the operator's mailbox, which no merchant's key reads (docs/guide/sandbox.md#the-mailbox).
 * A mail server that fails is tried again (the job's backoff) until the code expires.
 */
export async function mailEmailedCode(
  ctx: FlowContext,
  codeId: string,
  how: {
    worthSending: (email: string) => Promise<boolean>;
    message: (code: string) => { subject: string; body: string };
  },
): Promise<JobOutcome> {
  const mail = await findSignInCodeMail(ctx.tx.db, codeId);
  if (!mail) return { done: true };
  if (ctx.clock.now() < mail.expiresAt && (await how.worthSending(mail.email))) {
    await ctx.notifier.send({
      merchantId: operatorMailbox,
      to: mail.email,
      ...how.message(mail.code),
      code: mail.code,
      sentAt: mail.createdAt,
    });
  }
  await ctx.tx.write((trx) => deleteSignInCodeMail(trx, codeId));
  return { done: true };
}
