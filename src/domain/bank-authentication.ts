import { jstDateOf, type JstDate } from "./jst.js";

/**
 * The simulated bank's own authentication on its own page (docs/guide/simulated-bank.md): the
 * account's PIN (暗証番号) and the bank's one-time password. After three wrong entries the account
 * cannot be verified again until 00:00 JST, as banks lock it for the rest of the day. The
 * simulated banks accept one PIN and one password, printed on their login page.
 */
export const bankAuthenticationRules = Object.freeze({
  wrongEntriesPerDay: 3,
  sandboxPin: "1234",
  sandboxOneTimePassword: "123456",
});

export type BankAuthenticationVerdict =
  | { kind: "passed" }
  | { kind: "missing" }
  | { kind: "locked" }
  | { kind: "wrong"; attemptsLeft: number };

/** Judges one entry, given the account's wrong entries so far today (JST). */
export function judgeBankAuthentication(
  entry: { pin: string; oneTimePassword: string },
  wrongToday: number,
): BankAuthenticationVerdict {
  if (wrongToday >= bankAuthenticationRules.wrongEntriesPerDay) return { kind: "locked" };
  if (!entry.pin || !entry.oneTimePassword) return { kind: "missing" };
  if (
    entry.pin === bankAuthenticationRules.sandboxPin &&
    entry.oneTimePassword === bankAuthenticationRules.sandboxOneTimePassword
  )
    return { kind: "passed" };
  return { kind: "wrong", attemptsLeft: bankAuthenticationRules.wrongEntriesPerDay - wrongToday - 1 };
}

/** The key wrong entries are counted under: one account, one JST day. */
export function authenticationDay(now: Date): JstDate {
  return jstDateOf(now);
}

export function accountKey(account: { bankCode: string; branchCode: string; accountNumber: string }): string {
  return `${account.bankCode}-${account.branchCode}-${account.accountNumber}`;
}
