import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { errorTypeMessages } from "../domain/payment-failure.js";
import {
  bankProfileOf,
  bankRuleRefusal,
  debitedSoFar,
  limitRefusal,
  withDebit,
  type BankRefusal,
} from "../domain/bank-profile.js";
import {
  bankAccountLatencyMs,
  bookLedgerEntry,
  findBankAnswer,
  insertBankAnswer,
  lockBankAccount,
  reverseLedgerEntry,
  type BankAccountRecord,
  type StoredBankAnswer,
} from "../storage/bank-accounts.js";
import { isUniqueViolation, type Transactor, type Tx } from "../storage/transactor.js";
import type { BankGateway, BankRequest, ImmediateBankResult } from "./bank-gateway.js";
import { underMaintenanceAt } from "../domain/simulated-bank-maintenance.js";
import { findBankSettings } from "../storage/sandbox-settings.js";

/** Balance of a freshly linked simulated account, in yen. */
export const defaultSandboxBalance = 1_000_000;

/**
 * The sandbox bank: each account a customer approved (storage/bank-accounts.ts) with a balance, a
 * per-payment quota (OVER_LIMIT), a maintenance window (GATEWAY_UNAVAILABLE, retryable), a
 * rejecting switch (GATEWAY_FAILED) and a latency, plus a bank-wide maintenance switch per merchant, and the rules of Japanese banks by
 * bank code (domain/bank-profile.ts: maintenance windows, Zengin results, limits). Every booking
 * is a ledger row keyed by its reference, and every final answer (booked or refused) is kept per
 * reference, so one reference gets one answer however often and by whomever it is asked.
 */
export class SandboxBank implements BankGateway {
  constructor(private readonly tx: Transactor) {}

  async debit(request: BankRequest): Promise<ImmediateBankResult> {
    return this.#book({ ...request, signedAmount: -request.amount });
  }

  /**
   * A batch of debits in one booking transaction: the slowest account's latency waited once (as
   * debits called side by side would), then each booked as `debit` books it, in the requests'
   * order per account, on the account as the batch's earlier bookings left it. The accounts are
   * locked in id order, so two batches never wait on each other in a circle. Should the
   * transaction fail (a concurrent call answered one of the references first), each debit is
   * asked on its own.
   */
  async debitMany(requests: readonly BankRequest[]): Promise<ImmediateBankResult[]> {
    const accounts = [...new Set(requests.map((request) => request.accountId))];
    const latencyMs = Math.max(0, ...(await Promise.all(accounts.map((id) => bankAccountLatencyMs(this.tx.db, id)))));
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    const order = requests.map((_, index) => index);
    order.sort((a, b) =>
      requests[a].accountId < requests[b].accountId ? -1 : requests[a].accountId > requests[b].accountId ? 1 : a - b,
    );
    try {
      return await this.tx.write(async (trx) => {
        const answers: ImmediateBankResult[] = new Array(requests.length);
        for (const index of order)
          answers[index] = await this.#bookIn(trx, { ...requests[index], signedAmount: -requests[index].amount });
        return answers;
      });
    } catch {
      return Promise.all(requests.map((request) => this.debit(request)));
    }
  }

  async refund(request: BankRequest): Promise<ImmediateBankResult> {
    return this.#book({ ...request, signedAmount: request.amount });
  }

  async #book(request: Omit<BankRequest, "amount"> & { signedAmount: number }): Promise<ImmediateBankResult> {
    const latencyMs = await bankAccountLatencyMs(this.tx.db, request.accountId);
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    try {
      return await this.tx.write((trx) => this.#bookIn(trx, request));
    } catch (error) {
      // A concurrent call with the same reference answered first: its answer is the answer.
      const answered = isUniqueViolation(error) && (await findBankAnswer(this.tx.db, request.reference));
      if (answered) return asResult(answered);
      throw error;
    }
  }

  /** One booking inside the caller's transaction: the reference's kept answer, or a new one. */
  async #bookIn(
    trx: Tx,
    request: Omit<BankRequest, "amount"> & { signedAmount: number },
  ): Promise<ImmediateBankResult> {
    const at = request.at.toISOString();
    const answered = await findBankAnswer(trx, request.reference);
    if (answered) return asResult(answered);
    const answer = await this.#decide(trx, request, at);
    // A final answer is kept: the same reference asked again, by anyone, gets this answer.
    if (answer.ok || !answer.retryable) await insertBankAnswer(trx, request.reference, answer, at);
    return answer;
  }

  /** Inside the booking transaction: refuses, or books the amount on the ledger. */
  async #decide(
    trx: Tx,
    request: Omit<BankRequest, "amount"> & { signedAmount: number },
    at: string,
  ): Promise<ImmediateBankResult> {
    const bank = await findBankSettings(trx, request.merchantId);
    if (bank && underMaintenanceAt(bank.underMaintenance, bank.maintenanceUntil, new Date(at)))
      return refusal(ErrorType.PAYMENT_GATEWAY_UNAVAILABLE, true);
    const current = await lockBankAccount(this.tx, trx, request.accountId);
    if (!current) return refusal(ErrorType.PAYMENT_GATEWAY_FAILED, false, "no bank account linked");
    if (underMaintenanceAt(current.underMaintenance, current.maintenanceUntil, new Date(at)))
      return refusal(ErrorType.PAYMENT_GATEWAY_UNAVAILABLE, true);
    const bankRule = japaneseBankRefusal(current, request);
    if (bankRule) return { ok: false, ...bankRule };
    if (request.signedAmount < 0) {
      if (current.reject) return refusal(ErrorType.PAYMENT_GATEWAY_FAILED, false);
      if (current.quota > 0 && -request.signedAmount > current.quota)
        return refusal(ErrorType.PAYMENT_CHARGE_OVER_LIMIT, false);
      if (current.balance + request.signedAmount < 0)
        return refusal(ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS, false);
    }
    await bookLedgerEntry(trx, {
      accountId: current.id,
      customerId: current.customerId,
      reference: request.reference,
      signedAmount: request.signedAmount,
      balanceAfter: current.balance + request.signedAmount,
      at,
      ...(request.signedAmount < 0
        ? { debitTotalsAfter: withDebit(current.debitTotals, -request.signedAmount, request.at) }
        : {}),
    });
    return { ok: true };
  }

  async reverseBooking(trx: Tx, request: { reference: string; at: Date }): Promise<void> {
    await reverseLedgerEntry(this.tx, trx, request.reference, request.at.toISOString());
  }
}

function asResult(answer: StoredBankAnswer): ImmediateBankResult {
  return answer.ok ? answer : { ...answer, retryable: false };
}

/**
 * The rules of the account's bank (its profile, by bank code) on the account as locked in the
 * booking transaction: the rules that need no history, then for debits the limits over what was
 * debited so far (the running totals on the account's row, not a sum over its ledger).
 */
function japaneseBankRefusal(
  account: BankAccountRecord,
  request: { signedAmount: number; at: Date },
): BankRefusal | undefined {
  const profile = bankProfileOf(account.details.bankCode);
  const refusal = bankRuleRefusal(profile, account.details.accountNumber, request);
  if (refusal || request.signedAmount >= 0) return refusal;
  return limitRefusal(profile, -request.signedAmount, debitedSoFar(account.debitTotals, request.at));
}

function refusal(
  errorType: ErrorType,
  retryable: boolean,
  message = errorTypeMessages[errorType],
): ImmediateBankResult {
  return { ok: false, errorType, message, retryable };
}
