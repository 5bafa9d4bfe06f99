import { createHash, timingSafeEqual } from "node:crypto";
import {
  accountKey,
  authenticationDay,
  judgeBankAuthentication,
  type BankAuthenticationVerdict,
} from "../domain/bank-authentication.js";
import { parseAccount } from "../domain/bank-account.js";
import { randomToken } from "../domain/ids.js";
import { asciiDigits } from "../domain/yucho-account.js";
import {
  findAccountVerification,
  lockAccountVerification,
  markBankCodeUsed,
  saveBankCode,
  type AccountVerificationRecord,
} from "../storage/account-verifications.js";
import { recordWrongEntry, wrongEntries } from "../storage/bank-authentication.js";
import { findMerchant } from "../storage/merchants.js";
import { findPaymentLinkById } from "../storage/payment-links.js";
import { unseal } from "../storage/sealed.js";
import { hashState } from "./account-verification.js";
import type { FlowContext } from "./flow-context.js";
import { limits } from "../domain/limits.js";

/**
 * The simulated bank's own side of an online mandate verification (server/sandbox-bank-site.ts
 * serves it on its own origin): its login page checks the account's PIN (暗証番号) and the bank's
 * one-time password — never entered on the service's pages — with the daily lock after three
 * wrong entries, then sends the customer back with an authorisation code, which the service
 * redeems once, server to server, within 5 minutes.
 */
export const bankSiteRules = Object.freeze({ codeValidityMs: limits.bankSiteCodeValidityMs });

export interface BankLoginView {
  merchantName: string;
  accountDisplay: string;
  accountHolder: string;
}

/** The request the bank was sent, if it is one it can act on (pending, with its state). */
async function pendingRequest(
  ctx: FlowContext,
  verificationId: string,
  state: string,
): Promise<AccountVerificationRecord | undefined> {
  const verification = await findAccountVerification(ctx.tx.db, verificationId);
  if (!verification || verification.status !== "pending") return undefined;
  if (!sameHash(verification.stateHash, hashState(state))) return undefined;
  return verification;
}

export async function bankLoginView(
  ctx: FlowContext,
  verificationId: string,
  state: string,
): Promise<BankLoginView | undefined> {
  const verification = await pendingRequest(ctx, verificationId, state);
  if (!verification) return undefined;
  const link = await findPaymentLinkById(ctx.tx.db, verification.linkId);
  const merchant = link && (await findMerchant(ctx.tx.db, link.merchantId));
  return {
    merchantName: merchant?.name ?? "",
    accountDisplay: verification.summary.display,
    accountHolder: parseAccount(unseal(verification.accountSealed)).accountHolder,
  };
}

/**
 * Where the customer goes back from a request the bank already answered (reached again with the
 * browser's Back from the page that followed): the service's return address, which with nothing
 * to settle shows the payment page as it stands. Undefined for a request the bank does not know.
 */
export async function finishedRequestReturn(
  ctx: FlowContext,
  verificationId: string,
  state: string,
): Promise<string | undefined> {
  const verification = await findAccountVerification(ctx.tx.db, verificationId);
  if (!verification || verification.status === "pending") return undefined;
  return sameHash(verification.stateHash, hashState(state)) ? verification.returnUrl : undefined;
}

export type BankAuthorisation =
  | { kind: "back"; location: URL }
  | { kind: "retry"; verdict: Exclude<BankAuthenticationVerdict, { kind: "passed" } | { kind: "locked" }> }
  | { kind: "unknown" };

/** The customer's answer on the bank's page: approve (with PIN and one-time password) or cancel. */
export async function bankAuthorise(
  ctx: FlowContext,
  form: { verificationId: string; state: string; pin: string; oneTimePassword: string; cancel: boolean },
): Promise<BankAuthorisation> {
  const verification = await pendingRequest(ctx, form.verificationId, form.state);
  if (!verification) return { kind: "unknown" };
  const back = (params: Record<string, string>): BankAuthorisation => {
    const location = new URL(verification.returnUrl);
    for (const [name, value] of Object.entries({ ...params, state: form.state }))
      location.searchParams.set(name, value);
    return { kind: "back", location };
  };
  if (form.cancel) return back({ error: "access_denied" });
  const key = accountKey(parseAccount(unseal(verification.accountSealed)));
  const day = authenticationDay(ctx.clock.now());
  const entries = { pin: asciiDigits(form.pin), oneTimePassword: asciiDigits(form.oneTimePassword) };
  const code = randomToken(32);
  const verdict = await ctx.tx.write(async (trx) => {
    const judged = judgeBankAuthentication(entries, await wrongEntries(trx, key, day));
    if (judged.kind === "wrong") await recordWrongEntry(trx, key, day);
    if (judged.kind === "passed") await saveBankCode(trx, verification.id, hashCode(code), ctx.clock.now());
    return judged;
  });
  if (verdict.kind === "locked") return back({ error: "locked" });
  if (verdict.kind === "passed") return back({ code });
  return { kind: "retry", verdict };
}

/** The token endpoint: the code the bank gave for this request, unused and fresh, is redeemed once. */
export async function bankRedeemCode(ctx: FlowContext, verificationId: string, code: string): Promise<boolean> {
  return ctx.tx.write(async (trx) => {
    const now = ctx.clock.now();
    const verification = await lockAccountVerification(ctx.tx, trx, verificationId);
    if (!verification?.codeHash || !verification.codeIssuedAt || verification.codeUsedAt) return false;
    if (now.getTime() - verification.codeIssuedAt.getTime() > bankSiteRules.codeValidityMs) return false;
    if (!sameHash(verification.codeHash, hashCode(code))) return false;
    await markBankCodeUsed(trx, verification.id, now);
    return true;
  });
}

const hashCode = (code: string) => createHash("sha256").update(`bank-code:${code}`).digest("hex");

function sameHash(expected: string, actual: string): boolean {
  const a = Buffer.from(expected, "hex");
  const b = Buffer.from(actual, "hex");
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}
