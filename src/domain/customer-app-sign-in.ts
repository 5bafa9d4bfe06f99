import type { CookieSession } from "./dashboard-session.js";
import { normalizeEmail } from "./customer.js";
import { oneTimeCodeRules, type OneTimeCodeRecord } from "./one-time-code.js";
import { RequestRefusal } from "./request-refusal.js";
import { limits } from "./limits.js";
import { daysMs, minutesMs } from "./duration.js";

/**
 * Signing in to the customer app (docs/guide/customer-app.md#signing-in): the hosted page's
 * one-time codes (10 minutes, 5 attempts, one send per 30 seconds), owned by the e-mail rather than
 * a payment link, at most 10 sent to one e-mail a day.
 */
export const customerSignInRules = Object.freeze({
  maxCodesPerDay: limits.customerSignInCodesPerDayMax,
  dayMs: daysMs(1),
});

/** The owner key of an e-mail's sign-in codes in the one-time code store. */
export function signInCodeOwner(email: string): string {
  return `app:${normalizeEmail(email)}`;
}

/** The codes that count against the daily limit: those sent in the last day. */
export function codesOfLastDay(codes: readonly OneTimeCodeRecord[], now: Date): OneTimeCodeRecord[] {
  return codes.filter((code) => now.getTime() - code.createdAt.getTime() < customerSignInRules.dayMs);
}

export const tooManySignInCodes = () =>
  new RequestRefusal("rate_limited", "too many sign-in codes were sent to this e-mail today; try again tomorrow", {
    reason: "SIGN_IN_CODE_LIMIT",
  });

/** The e-mail carrying a sign-in code, in Japanese with an English line. */
export function signInCodeMessage(code: string): { subject: string; body: string } {
  const minutes = oneTimeCodeRules.validityMs / minutesMs(1);
  return {
    subject: "【furikomi】ご利用明細のログインコード / Sign-in code",
    body: [
      `ご利用明細にログインするための確認コードは ${code} です。`,
      `有効期限は${minutes}分です。このコードを他の人に教えないでください。`,
      "",
      `Your code to sign in to your payment history is ${code}.`,
      `It is valid for ${minutes} minutes. Never share it with anyone.`,
    ].join("\n"),
  };
}

/** A customer-app session (docs/guide/customer-app.md#sessions): only hashes of its tokens are kept. */
export interface CustomerAppSessionRecord extends CookieSession {
  idHash: string;
  emailNormalized: string;
  createdAt: Date;
}
