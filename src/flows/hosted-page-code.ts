import {
  codeMatches,
  codeUnusableReason,
  storedOneTimeCode,
  newOneTimeCode,
  oneTimeCodeMessage,
  oneTimeCodeRules,
  resendAvailableAt,
} from "../domain/one-time-code.js";
import { maskEmail } from "../domain/payment-link.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { findMerchant } from "../storage/merchants.js";
import { deleteOneTimeCode, insertOneTimeCode, lockCodesOfLink, saveCodeAttempt } from "../storage/one-time-codes.js";
import { lockPaymentLink, markPaymentLinkStep } from "../storage/payment-links.js";
import type { FlowContext } from "./flow-context.js";
import { openStep } from "./hosted-page.js";

/** The hosted page's two-factor code, e-mailed to the customer; its errors follow flows/hosted-page.ts. */

/**
 * Sends a 6-digit code to the customer's e-mail through the notifier. Only the hash is stored;
 * a new code replaces the previous one; one send per 30 seconds, at most 10 per link.
 */
export async function sendTwoFactorCode(
  ctx: FlowContext,
  token: string,
): Promise<{ emailHint: string; expiresAt: Date; resendAvailableAt: Date }> {
  const link = await openStep(ctx, token, { verified: false });
  if (link.twoFactorVerified) throw new RequestRefusal("precondition", "the two-factor code has already been verified");
  const code = newOneTimeCode();
  const stored = await ctx.tx.write(async (trx) => {
    const now = ctx.clock.now();
    await lockPaymentLink(ctx.tx, trx, link.id);
    const codes = await lockCodesOfLink(ctx.tx, trx, link.id);
    const availableAt = resendAvailableAt(codes[0]?.createdAt, now);
    if (availableAt > now)
      throw new RequestRefusal(
        "rate_limited",
        `a code was just sent; ask for a new one after ${availableAt.toISOString()}`,
      );
    if (codes.length >= oneTimeCodeRules.maxCodesPerLink)
      throw new RequestRefusal("rate_limited", "too many codes were sent for this payment link");
    const record = storedOneTimeCode(code, now);
    await insertOneTimeCode(trx, link.id, record);
    return record;
  });
  const merchant = await findMerchant(ctx.tx.db, link.merchantId);
  try {
    await ctx.notifier.send({
      merchantId: link.merchantId,
      to: link.email,
      ...oneTimeCodeMessage(merchant?.name ?? "", code),
      code,
      sentAt: stored.createdAt,
    });
  } catch (error) {
    // Not delivered: forget it, so the customer may ask again at once.
    await ctx.tx.write((trx) => deleteOneTimeCode(trx, stored.id));
    throw error;
  }
  return {
    emailHint: maskEmail(link.email),
    expiresAt: stored.expiresAt,
    resendAvailableAt: resendAvailableAt(stored.createdAt, stored.createdAt),
  };
}

/** Checks the newest code: 10 minutes, 5 attempts, accepted once. */
export async function verifyTwoFactorCode(
  ctx: FlowContext,
  token: string,
  code: string,
): Promise<{ verified: boolean; attemptsLeft: number }> {
  const link = await openStep(ctx, token, { verified: false });
  if (link.twoFactorVerified) throw new RequestRefusal("precondition", "the two-factor code has already been verified");
  return ctx.tx.write(async (trx) => {
    const now = ctx.clock.now();
    await lockPaymentLink(ctx.tx, trx, link.id);
    const [latest] = await lockCodesOfLink(ctx.tx, trx, link.id);
    if (!latest) throw new RequestRefusal("precondition", "no code has been sent yet; ask for one");
    const unusable = codeUnusableReason(latest, now);
    if (unusable) throw new RequestRefusal("precondition", unusable);
    const verified = codeMatches(latest, code);
    const attempt = { ...latest, attempts: latest.attempts + 1, usedAt: verified ? now : null };
    await saveCodeAttempt(trx, attempt);
    if (verified) await markPaymentLinkStep(trx, link.id, "two_factor_verified", now);
    return { verified, attemptsLeft: Math.max(0, oneTimeCodeRules.maxAttempts - attempt.attempts) };
  });
}
