import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { bankProfileOf, limitExceeded, type BankLimits } from "../domain/bank-profile.js";
import { jstDayStart, jstMonthStart } from "../domain/jst.js";
import { maintenanceAt } from "../domain/maintenance-window.js";
import { errorTypeMessages } from "../domain/payment-failure.js";
import { zenginFailureMessage, zenginResultOfAccount } from "../domain/zengin-result.js";
import type { BankAccountTable } from "../storage/schema.js";
import type { Tx } from "../storage/transactor.js";
import type { BankResult } from "./bank-gateway.js";
import { isReversal, reversalReference } from "./sandbox-bank.js";

const limitLabels: Readonly<Record<keyof BankLimits, string>> = Object.freeze({
  perPayment: "per payment",
  perDay: "per day",
  perMonth: "per month",
});

/**
 * The rules of the account's bank (its profile, by bank code) inside the sandbox bank's booking
 * transaction: its maintenance windows (debits and refunds), then for debits the Zengin result of
 * a magic account number and the contract's limits. Undefined: the bank has no objection.
 */
export async function japaneseBankRefusal(
  trx: Tx,
  account: BankAccountTable,
  request: { signedAmount: number; at: Date },
): Promise<BankResult | undefined> {
  const profile = bankProfileOf(account.bank_code);
  const window = maintenanceAt(profile.maintenance, request.at);
  if (window) {
    const message = `${errorTypeMessages[ErrorType.PAYMENT_GATEWAY_UNAVAILABLE]} (${profile.name} maintenance, ${window.description}, until ${window.end.toISOString()})`;
    return {
      ok: false,
      errorType: ErrorType.PAYMENT_GATEWAY_UNAVAILABLE,
      message,
      retryable: true,
      retryAfter: window.end,
    };
  }
  if (request.signedAmount >= 0) return undefined;
  const zengin = zenginResultOfAccount(account.account_number);
  if (zengin)
    return { ok: false, errorType: zengin.errorType, message: zenginFailureMessage(zengin), retryable: false };
  const exceeded = limitExceeded(
    profile.limits,
    -request.signedAmount,
    await debitedSoFar(trx, account.customer_id, request.at),
  );
  if (!exceeded) return undefined;
  const message = `${errorTypeMessages[ErrorType.PAYMENT_CHARGE_OVER_LIMIT]} (${profile.name}: ¥${profile.limits[exceeded].toLocaleString("en")} ${limitLabels[exceeded]})`;
  return { ok: false, errorType: ErrorType.PAYMENT_CHARGE_OVER_LIMIT, message, retryable: false };
}

/**
 * What the account was debited since 00:00 JST today and since the 1st of the month (JST): what
 * was really taken, so a debit reversed by a same-day cancellation does not count.
 */
async function debitedSoFar(trx: Tx, customerId: string, at: Date): Promise<{ today: number; thisMonth: number }> {
  const dayStart = jstDayStart(at).toISOString();
  const rows = await trx
    .selectFrom("bank_ledger")
    .select(["reference", "amount", "at"])
    .where("customer_id", "=", customerId)
    .where("at", ">=", jstMonthStart(at).toISOString())
    .execute();
  const references = new Set(rows.map((row) => row.reference));
  const debits = rows.filter(
    (row) => Number(row.amount) < 0 && !isReversal(row.reference) && !references.has(reversalReference(row.reference)),
  );
  const sum = (rows: typeof debits) => rows.reduce((total, row) => total - Number(row.amount), 0);
  return { today: sum(debits.filter((row) => row.at >= dayStart)), thisMonth: sum(debits) };
}
