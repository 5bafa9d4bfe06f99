import { accountKey, authenticationDay, judgeBankAuthentication } from "../domain/bank-authentication.js";
import { bankProfileOf } from "../domain/bank-profile.js";
import { validationFailure } from "../domain/payment-failure.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { recordWrongEntry, wrongEntries } from "../storage/bank-authentication.js";
import type { FlowContext } from "./flow-context.js";

export interface BankCredentials {
  bankCode: string;
  branchCode: string;
  accountNumber: string;
  /** Empty when the customer gave none. */
  pin: string;
  oneTimePassword: string;
}

/**
 * The bank's authentication step of LinkBankAccount, at banks that ask for it. A wrong entry is
 * counted in a transaction of its own, committed before the refusal, so the daily lock holds.
 */
export async function authenticateAtBank(ctx: FlowContext, credentials: BankCredentials): Promise<void> {
  if (!bankProfileOf(credentials.bankCode).authentication) return;
  const key = accountKey(credentials);
  const day = authenticationDay(ctx.clock.now());
  const verdict = await ctx.tx.write(async (trx) => {
    const judged = judgeBankAuthentication(credentials, await wrongEntries(trx, key, day));
    if (judged.kind === "wrong") await recordWrongEntry(trx, key, day);
    return judged;
  });
  if (verdict.kind === "missing")
    throw validationFailure("pin", "this bank asks for the account's PIN and its one-time password");
  if (verdict.kind === "wrong")
    throw validationFailure(
      "pin",
      `the PIN or the one-time password is wrong; ${verdict.attemptsLeft} attempt(s) left today`,
    );
  if (verdict.kind === "locked")
    throw new RequestRefusal(
      "rate_limited",
      "too many wrong entries: the bank has locked this account until 00:00 JST",
    );
}
