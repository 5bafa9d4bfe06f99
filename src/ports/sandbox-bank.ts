import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { errorTypeMessages } from "../domain/payment-failure.js";
import type { Transactor, Tx } from "../storage/transactor.js";
import { isUniqueViolation } from "../storage/transactor.js";
import type { BankGateway, BankResult } from "./bank-gateway.js";
import { japaneseBankRefusal } from "./japanese-bank-rules.js";

/** Balance of a freshly linked simulated account, in yen. */
export const defaultSandboxBalance = 1_000_000;

/**
 * The sandbox bank: per-customer accounts with a balance, a per-payment quota (OVER_LIMIT), a
 * maintenance window (GATEWAY_UNAVAILABLE, retryable), a rejecting switch (GATEWAY_FAILED) and a
 * latency, plus a bank-wide maintenance switch per merchant, and the rules of Japanese banks by
 * bank code (japanese-bank-rules.ts: maintenance windows, Zengin results, limits). Every booking
 * is a ledger row keyed by its reference, so the same reference is never booked twice.
 */
export class SandboxBank implements BankGateway {
  constructor(private readonly tx: Transactor) {}

  async debit(request: {
    merchantId: string;
    customerId: string;
    amount: number;
    reference: string;
    at: Date;
  }): Promise<BankResult> {
    return this.#book({ ...request, signedAmount: -request.amount });
  }

  async refund(request: {
    merchantId: string;
    customerId: string;
    amount: number;
    reference: string;
    at: Date;
  }): Promise<BankResult> {
    return this.#book({ ...request, signedAmount: request.amount });
  }

  async reverseBooking(trx: Tx, request: { reference: string; at: Date }): Promise<void> {
    const booking = await trx
      .selectFrom("bank_ledger")
      .selectAll()
      .where("reference", "=", request.reference)
      .executeTakeFirst();
    if (!booking) return;
    const account = await this.tx
      .lockRows(trx.selectFrom("bank_accounts").selectAll().where("customer_id", "=", booking.customer_id))
      .executeTakeFirst();
    const reference = reversalReference(request.reference);
    const reversed = await trx
      .selectFrom("bank_ledger")
      .select("id")
      .where("reference", "=", reference)
      .executeTakeFirst();
    if (!account || reversed) return;
    const balanceAfter = Number(account.balance) - Number(booking.amount);
    await trx
      .updateTable("bank_accounts")
      .set({ balance: balanceAfter })
      .where("customer_id", "=", booking.customer_id)
      .execute();
    await trx
      .insertInto("bank_ledger")
      .values({
        customer_id: booking.customer_id,
        reference,
        amount: -Number(booking.amount),
        balance_after: balanceAfter,
        at: request.at.toISOString(),
      })
      .execute();
  }

  async #book(request: {
    merchantId: string;
    customerId: string;
    signedAmount: number;
    reference: string;
    at: Date;
  }): Promise<BankResult> {
    const account = await this.tx.db
      .selectFrom("bank_accounts")
      .selectAll()
      .where("customer_id", "=", request.customerId)
      .executeTakeFirst();
    if (account && account.latency_ms > 0) await new Promise((resolve) => setTimeout(resolve, account.latency_ms));
    const at = request.at.toISOString();
    try {
      return await this.tx.write(async (trx) => {
        const answered = await answerTo(trx, request.reference);
        if (answered) return answered;
        const answer = await this.#decide(trx, request, at);
        // A final answer is kept: the same reference asked again, by anyone, gets this answer.
        if (answer.ok || !answer.retryable) {
          await trx
            .insertInto("bank_answers")
            .values({
              reference: request.reference,
              ok: answer.ok ? 1 : 0,
              error_type: answer.ok ? 0 : answer.errorType,
              message: answer.ok ? "" : answer.message,
              at,
            })
            .execute();
        }
        return answer;
      });
    } catch (error) {
      // A concurrent call with the same reference answered first: its answer is the answer.
      if (isUniqueViolation(error)) {
        const answered = await answerTo(this.tx.db, request.reference);
        if (answered) return answered;
      }
      throw error;
    }
  }

  /** Inside the booking transaction: refuses, or books the amount on the ledger. */
  async #decide(
    trx: Tx,
    request: { merchantId: string; customerId: string; signedAmount: number; reference: string; at: Date },
    at: string,
  ): Promise<BankResult> {
    const bank = await trx
      .selectFrom("bank_settings")
      .selectAll()
      .where("merchant_id", "=", request.merchantId)
      .executeTakeFirst();
    if (bank && underMaintenance(bank.under_maintenance, bank.maintenance_until, at))
      return refusal(ErrorType.PAYMENT_GATEWAY_UNAVAILABLE, true);
    const current = await this.tx
      .lockRows(trx.selectFrom("bank_accounts").selectAll().where("customer_id", "=", request.customerId))
      .executeTakeFirst();
    if (!current) return refusal(ErrorType.PAYMENT_GATEWAY_FAILED, false, "no bank account linked");
    if (underMaintenance(current.under_maintenance, current.maintenance_until, at))
      return refusal(ErrorType.PAYMENT_GATEWAY_UNAVAILABLE, true);
    const bankRule = await japaneseBankRefusal(trx, current, request);
    if (bankRule) return bankRule;
    if (request.signedAmount < 0) {
      if (current.reject) return refusal(ErrorType.PAYMENT_GATEWAY_FAILED, false);
      if (current.quota > 0 && -request.signedAmount > current.quota)
        return refusal(ErrorType.PAYMENT_CHARGE_OVER_LIMIT, false);
      if (current.balance + request.signedAmount < 0)
        return refusal(ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS, false);
    }
    const balanceAfter = current.balance + request.signedAmount;
    await trx
      .updateTable("bank_accounts")
      .set({ balance: balanceAfter })
      .where("customer_id", "=", request.customerId)
      .execute();
    await trx
      .insertInto("bank_ledger")
      .values({
        customer_id: request.customerId,
        reference: request.reference,
        amount: request.signedAmount,
        balance_after: balanceAfter,
        at,
      })
      .execute();
    return { ok: true };
  }
}

const reversalSuffix = "/reversal";

/** The ledger reference of the reversal of the booking under `reference` (a cancelled debit, a failed refund). */
export function reversalReference(reference: string): string {
  return reference + reversalSuffix;
}

export function isReversal(reference: string): boolean {
  return reference.endsWith(reversalSuffix);
}

/** The answer given to a reference before, if any (a booking from before answers were kept counts as ok). */
async function answerTo(db: Tx | Transactor["db"], reference: string): Promise<BankResult | undefined> {
  const answer = await db.selectFrom("bank_answers").selectAll().where("reference", "=", reference).executeTakeFirst();
  if (answer) {
    return answer.ok
      ? { ok: true }
      : { ok: false, errorType: answer.error_type as ErrorType, message: answer.message, retryable: false };
  }
  const booked = await db.selectFrom("bank_ledger").select("id").where("reference", "=", reference).executeTakeFirst();
  return booked ? { ok: true } : undefined;
}

function underMaintenance(flag: number, until: string | null, at: string): boolean {
  if (until) return at < until;
  return flag === 1;
}

function refusal(errorType: ErrorType, retryable: boolean, message = errorTypeMessages[errorType]): BankResult {
  return { ok: false, errorType, message, retryable };
}
