import { ErrorType } from "../../../gen/payments/v1/enums_pb.js";
import type { Model, ModelAccount } from "./model-state.js";

/** What the simulated bank answers (docs/guide/sandbox.md). */
export type BankVerdict = { ok: true } | { ok: false; errorType: ErrorType; retryable: boolean };

function unavailable(model: Model, account: ModelAccount): boolean {
  return model.bankMaintenance || account.underMaintenance;
}

/** A debit of `amount` against the account as it stands. */
export function debitVerdict(model: Model, account: ModelAccount, amount: number): BankVerdict {
  if (unavailable(model, account))
    return { ok: false, errorType: ErrorType.PAYMENT_GATEWAY_UNAVAILABLE, retryable: true };
  if (account.reject) return { ok: false, errorType: ErrorType.PAYMENT_GATEWAY_FAILED, retryable: false };
  if (account.quota > 0 && amount > account.quota)
    return { ok: false, errorType: ErrorType.PAYMENT_CHARGE_OVER_LIMIT, retryable: false };
  if (account.balance < amount)
    return { ok: false, errorType: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS, retryable: false };
  return { ok: true };
}

/** A credit (refund transfer): only maintenance stops it. */
export function creditPossible(model: Model, account: ModelAccount): boolean {
  return !unavailable(model, account);
}

export function book(account: ModelAccount, reference: string, signedAmount: number): void {
  account.balance += signedAmount;
  account.ledger.push({ reference, amount: signedAmount });
}
