import { ChargeStatus, RefundStatus } from "../../../gen/payments/v1/enums_pb.js";
import { bankCalendar } from "../../../src/domain/bank-calendar.js";
import { japaneseNationalHolidays } from "../../../src/ports/national-holidays.js";
import { cancellationDeadline, refundSettlesAt, type BankRules } from "../../../src/domain/bank-cutoff.js";
import { defaultBankProfile } from "../../../src/domain/bank-profile.js";
import { book, creditPossible } from "./bank-model.js";
import {
  accountOfCharge,
  chargeOf,
  refundableAmount,
  refundedAmount,
  type Model,
  type ModelRefund,
} from "./model-state.js";

const hour = 3_600_000;
// Calendar facts (business days, cutoff, settlement batch) come from the bank's published rules,
// the same tables docs/guide/simulated-bank.md lists; the model decides everything else itself.
const bank: BankRules = { profile: defaultBankProfile, calendar: bankCalendar(japaneseNationalHolidays) };

/** The refusal messages of docs/guide/refunds.md (HTTP 500, no code). */
export const refusals = {
  notOwned: "transaction does not belong to the merchant",
  notCancellable: "transaction is not in a cancellable state",
  exceeds: "refund amount exceeds refundable amount",
  partial: "transaction has already been partially refunded; only partial refunds are allowed",
} as const;

export type RefundDecision = { refused: keyof typeof refusals } | { cancellation: boolean; amount: number };

export function decideRefund(model: Model, chargeId: string, amount: number | undefined): RefundDecision {
  const charge = model.charges.find((c) => c.id === chargeId);
  if (!charge) return { refused: "notOwned" };
  const remainder = refundableAmount(charge);
  if (remainder <= 0) return { refused: "notCancellable" };
  const earlier = refundedAmount(charge) > 0;
  if (amount === undefined && earlier) return { refused: "partial" };
  const refund = amount ?? remainder;
  if (refund > remainder) return { refused: "exceeds" };
  const full = !earlier && refund === charge.amount;
  return {
    cancellation: full && model.now < cancellationDeadline(bank, new Date(charge.succeededAt!)).getTime(),
    amount: refund,
  };
}

export function acceptRefund(model: Model, refund: ModelRefund): void {
  const charge = chargeOf(model, refund.chargeId);
  if (refund.cancellation) {
    charge.status = ChargeStatus.CANCELLED;
    charge.refundedSettled += refund.amount;
    refund.status = RefundStatus.SUCCEEDED;
    // The booked debit is reversed in the cancelling transaction.
    book(accountOfCharge(model, charge), `${charge.id}/reversal`, refund.amount);
    return;
  }
  charge.refundedPending += refund.amount;
  refund.jobRunAt = refundSettlesAt(bank, new Date(model.now)).getTime();
}

function finish(model: Model, refund: ModelRefund, succeeded: boolean): void {
  const charge = chargeOf(model, refund.chargeId);
  charge.refundedPending -= refund.amount;
  refund.jobRunAt = undefined;
  refund.status = succeeded ? RefundStatus.SUCCEEDED : RefundStatus.FAILED;
  if (!succeeded) return;
  charge.refundedSettled += refund.amount;
  book(accountOfCharge(model, charge), refund.id, refund.amount);
  if (charge.refundedSettled >= charge.amount) charge.status = ChargeStatus.REFUNDED;
}

/** One settlement attempt; false when the bank was under maintenance (still pending). */
export function settleRefund(model: Model, refund: ModelRefund, forcedFailure: boolean): boolean {
  if (forcedFailure || refund.failsAtSettlement) {
    finish(model, refund, false);
    return true;
  }
  const account = accountOfCharge(model, chargeOf(model, refund.chargeId));
  if (!creditPossible(model, account)) return false;
  finish(model, refund, true);
  return true;
}

/** The settlement job: retried 5 minutes after, doubling, at most hourly, while under maintenance. */
export function runRefundJob(model: Model, refund: ModelRefund): void {
  refund.jobAttempts += 1;
  if (settleRefund(model, refund, false)) return;
  refund.jobRunAt = model.now + Math.min(300_000 * 2 ** (refund.jobAttempts - 1), hour);
}
