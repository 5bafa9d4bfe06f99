import { ChargeStatus, PaymentErrorCode, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { cancellationDeadline, refundSettlesAt, type BankRules } from "./bank-cutoff.js";
import { transitionCharge } from "./charge.js";
import { PaymentFailure } from "./payment-failure.js";
import type { ChargeRecord, Metadata, RefundRecord } from "./records.js";
import { limits } from "./limits.js";

/**
 * Refund rules (docs/reference/contract.md#refunds, docs/reference/contract.md#money-and-time). Pure: the charge
 * and the time come in, a decision or a changed record goes out.
 */

/**
 * The business-rule messages (docs/reference/contract.md#refunds). The contract gives messages, not codes: these answer HTTP 500
 * (PaymentErrorCode.INTERNAL) with no catalogued code, and merchants must not branch on the text.
 */
export const refundRefusalMessages = Object.freeze({
  notOwned: "transaction does not belong to the merchant",
  notCancellable: "transaction is not in a cancellable state",
  exceedsRefundable: "refund amount exceeds refundable amount",
  alreadyPartiallyRefunded: "transaction has already been partially refunded; only partial refunds are allowed",
});

export type RefundRefusal = keyof typeof refundRefusalMessages;

/**
 * The reason the dashboard gets for each rule (docs/guide/dashboard.md#refunds), named here so that
 * renaming a rule above is not an API change.
 */
export const refundRefusalReasons: Readonly<Record<RefundRefusal, string>> = Object.freeze({
  notOwned: "REFUND_NOT_OWNED",
  notCancellable: "REFUND_NOT_CANCELLABLE",
  exceedsRefundable: "REFUND_EXCEEDS_REFUNDABLE",
  alreadyPartiallyRefunded: "REFUND_ALREADY_PARTIALLY_REFUNDED",
});

/** A refused refund; `refusal` names the rule for clients that show it in their own words (the dashboard). */
export class RefundRefusedFailure extends PaymentFailure {
  constructor(readonly refusal: RefundRefusal) {
    super(PaymentErrorCode.INTERNAL, refundRefusalMessages[refusal]);
  }
}

export function refundRefused(reason: RefundRefusal): PaymentFailure {
  return new RefundRefusedFailure(reason);
}

/** An unknown charge and another merchant's charge are refused alike (no existence oracle). */
export function requireOwnedCharge(charge: ChargeRecord | undefined): ChargeRecord {
  if (!charge) throw refundRefused("notOwned");
  return charge;
}

/** Accepted refunds, settled and pending: what the charge shows as `refundedAmount`. */
export function refundedIncludingPending(charge: ChargeRecord): number {
  return charge.refundedAmount + charge.pendingRefundAmount;
}

/** What can still be refunded: only a successful charge is refundable, minus every accepted refund. */
export function refundableRemainder(charge: ChargeRecord): number {
  if (charge.status !== ChargeStatus.SUCCESS) return 0;
  return charge.amount - refundedIncludingPending(charge);
}

/** When a refund whose bank was under maintenance is tried again: 5 min, doubling, at most an hour. */
export function refundRetryAt(now: Date, attempt: number): Date {
  const delayMs = Math.min(
    limits.refundRetryFirstDelayMs * 2 ** Math.max(0, attempt - 1),
    limits.refundRetryDelayMaxMs,
  );
  return new Date(now.getTime() + delayMs);
}

export type RefundDecision =
  /** A same-day full refund: the charge is cancelled, no money moves. */
  | { kind: "cancellation"; amount: number }
  /** The money goes back through the bank, asynchronously. */
  | { kind: "transfer"; amount: number; settleAfter: Date };

/**
 * Decides a refund request against the charge as it stands (read under lock). `amount` absent
 * means the whole charge; the whole amount with no earlier refund counts as a full refund too.
 * A full refund before the customer's bank's cutoff on the charge's bank day cancels it (this
 * replaces the JST midnight of docs/reference/contract.md#money-and-time); anything else is a transfer that settles on the bank's
 * business days (bank-cutoff.ts). `cancellable` false (a debit the Zengin file exchange already
 * made): always a transfer. Throws the business-rule failures of docs/reference/contract.md#refunds.
 */
export function decideRefund(
  charge: ChargeRecord,
  amount: number | undefined,
  now: Date,
  bank: BankRules,
  cancellable = true,
): RefundDecision {
  const remainder = refundableRemainder(charge);
  // Failed, pending, cancelled and refunded charges, and charges whose refunds already cover them.
  if (remainder <= 0) throw refundRefused("notCancellable");
  const earlierRefunds = refundedIncludingPending(charge) > 0;
  if (amount === undefined && earlierRefunds) throw refundRefused("alreadyPartiallyRefunded");
  const refundAmount = amount ?? remainder;
  if (refundAmount > remainder) throw refundRefused("exceedsRefundable");
  const full = !earlierRefunds && refundAmount === charge.amount;
  if (cancellable && full && charge.succeededAt && now < cancellationDeadline(bank, charge.succeededAt))
    return { kind: "cancellation", amount: refundAmount };
  return { kind: "transfer", amount: refundAmount, settleAfter: refundSettlesAt(bank, now) };
}

/** The refund record a decision creates. */
export function newRefund(input: {
  id: string;
  charge: ChargeRecord;
  decision: RefundDecision;
  reason: string;
  metadata: Metadata;
  now: Date;
}): RefundRecord {
  const cancellation = input.decision.kind === "cancellation";
  return {
    id: input.id,
    merchantId: input.charge.merchantId,
    chargeId: input.charge.id,
    amount: input.decision.amount,
    status: cancellation ? RefundStatus.SUCCEEDED : RefundStatus.PENDING,
    cancellation,
    reason: input.reason,
    metadata: input.metadata,
    errorMessage: "",
    settleAfter: input.decision.kind === "transfer" ? input.decision.settleAfter : input.now,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/** The charge once a refund is accepted: cancelled at once, or the amount held as pending. */
export function chargeAfterAcceptance(charge: ChargeRecord, decision: RefundDecision, now: Date): ChargeRecord {
  if (decision.kind === "cancellation") {
    return {
      ...transitionCharge(charge, ChargeStatus.CANCELLED, now),
      refundedAmount: charge.refundedAmount + decision.amount,
    };
  }
  return { ...charge, pendingRefundAmount: charge.pendingRefundAmount + decision.amount, updatedAt: now };
}

/** A pending refund settled by the bank: the charge is REFUNDED once refunds reach its amount. */
export function settleRefund(
  charge: ChargeRecord,
  refund: RefundRecord,
  now: Date,
): { charge: ChargeRecord; refund: RefundRecord } {
  const moved: ChargeRecord = {
    ...charge,
    pendingRefundAmount: charge.pendingRefundAmount - refund.amount,
    refundedAmount: charge.refundedAmount + refund.amount,
    updatedAt: now,
  };
  const settled = moved.refundedAmount >= moved.amount ? transitionCharge(moved, ChargeStatus.REFUNDED, now) : moved;
  return { charge: settled, refund: { ...refund, status: RefundStatus.SUCCEEDED, updatedAt: now } };
}

/** A pending refund the bank did not carry out: the amount is refundable again, the charge unchanged. */
export function failRefund(
  charge: ChargeRecord,
  refund: RefundRecord,
  rootCause: string,
  now: Date,
): { charge: ChargeRecord; refund: RefundRecord } {
  return {
    charge: { ...charge, pendingRefundAmount: charge.pendingRefundAmount - refund.amount, updatedAt: now },
    refund: { ...refund, status: RefundStatus.FAILED, errorMessage: rootCause, updatedAt: now },
  };
}

/** Sandbox: refund metadata `sandboxRefundOutcome=fail` makes the refund fail at settlement. */
export const sandboxRefundOutcomeKey = "sandboxRefundOutcome";
export const sandboxRefundFailureMessage = "the receiving bank rejected the refund transfer (sandbox)";

export function sandboxForcesRefundFailure(metadata: Metadata): boolean {
  return metadata[sandboxRefundOutcomeKey] === "fail";
}
