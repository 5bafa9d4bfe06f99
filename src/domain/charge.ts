import { ApiSource, ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { PaymentFailure, errorTypeMessages } from "./payment-failure.js";
import type { ChargeRecord } from "./records.js";

/**
 * The charge state machine (docs/reference/contract.md#charge-status). Every change of a charge's status goes
 * through `transitionCharge`, so an illegal transition cannot be written.
 *
 *   PENDING ──► WAITING_EKYC ──► SUCCESS ──► CANCELLED (same-day full refund)
 *      │             │              └──────► REFUNDED  (refunds settled to the amount)
 *      └─────────────┴──► FAILURE (error set)
 */
const allowed: Readonly<Record<ChargeStatus, readonly ChargeStatus[]>> = Object.freeze({
  [ChargeStatus.UNSPECIFIED]: [],
  // CANCELLED: a Zengin debit refunded before its request file was written (never debited).
  [ChargeStatus.PENDING]: [
    ChargeStatus.WAITING_EKYC,
    ChargeStatus.SUCCESS,
    ChargeStatus.FAILURE,
    ChargeStatus.CANCELLED,
  ],
  [ChargeStatus.WAITING_EKYC]: [ChargeStatus.PENDING, ChargeStatus.SUCCESS, ChargeStatus.FAILURE],
  [ChargeStatus.SUCCESS]: [ChargeStatus.CANCELLED, ChargeStatus.REFUNDED],
  [ChargeStatus.FAILURE]: [],
  [ChargeStatus.CANCELLED]: [],
  [ChargeStatus.REFUNDED]: [],
});

/** What a new charge is made of; the rest of the record starts empty. */
export type NewChargeInput = Pick<
  ChargeRecord,
  | "id"
  | "merchantId"
  | "customerId"
  | "contractId"
  | "onSessionId"
  | "requestId"
  | "apiSource"
  | "amount"
  | "description"
  | "metadata"
>;

/** A new charge: PENDING, nothing refunded, no error; its account when already known (off-session: the contract's). */
export function newPendingCharge(
  input: NewChargeInput & { bankAccountId?: string | null; discount?: number },
  now: Date,
): ChargeRecord {
  return {
    ...input,
    bankAccountId: input.bankAccountId ?? null,
    discount: input.discount ?? 0,
    status: ChargeStatus.PENDING,
    errorType: ErrorType.UNSPECIFIED,
    errorMessage: "",
    refundedAmount: 0,
    pendingRefundAmount: 0,
    succeededAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

export function canTransitionCharge(from: ChargeStatus, to: ChargeStatus): boolean {
  return allowed[from].includes(to);
}

/** The charge after a status change; refuses an illegal one. */
export function transitionCharge(
  charge: ChargeRecord,
  to: ChargeStatus,
  now: Date,
  failure?: { errorType: ErrorType; message?: string },
): ChargeRecord {
  if (!canTransitionCharge(charge.status, to)) {
    throw new PaymentFailure(
      PaymentErrorCode.INTERNAL,
      `charge ${charge.id} cannot go from ${ChargeStatus[charge.status]} to ${ChargeStatus[to]}`,
    );
  }
  const next: ChargeRecord = { ...charge, status: to, updatedAt: now };
  if (to === ChargeStatus.SUCCESS) next.succeededAt = now;
  if (to === ChargeStatus.FAILURE) {
    const errorType = failure?.errorType ?? ErrorType.PAYMENT_CHARGE_FAILED;
    next.errorType = errorType;
    next.errorMessage = failure?.message ?? errorTypeMessages[errorType];
  }
  return next;
}

/**
 * A one-off on-session charge (one_off_charge): the only on-session charge with no contract (a
 * CHARGE link debits under the active contract, CONTRACT_WITH_CHARGE under its own).
 */
export function isOneOffCharge(charge: Pick<ChargeRecord, "apiSource" | "contractId">): boolean {
  return charge.apiSource === ApiSource.ON_SESSION && charge.contractId === null;
}

/**
 * The customer id the merchant sees on a charge: none for a one-off charge (spec), although the
 * charge keeps who paid, so refunds, cutoffs and bank rules reach that payer's account.
 */
export function customerIdShown(charge: Pick<ChargeRecord, "apiSource" | "contractId" | "customerId">): string {
  return isOneOffCharge(charge) ? "" : (charge.customerId ?? "");
}

/** A charge that was debited (partly or fully refunded since included) has a receipt (領収書); a failed or cancelled one has none. */
export function hasReceipt(status: ChargeStatus): boolean {
  return status === ChargeStatus.SUCCESS || status === ChargeStatus.REFUNDED;
}

/**
 * Whether an on-session charge still waits for its customer on the payment page: PENDING, and no
 * account approved on its link yet (the account is fixed as the approval is claimed). Screens call
 * it 未完了, not 処理中: nothing is being processed until the customer finishes the page.
 */
export function awaitingCustomer(charge: Pick<ChargeRecord, "status" | "onSessionId" | "bankAccountId">): boolean {
  return charge.status === ChargeStatus.PENDING && charge.onSessionId !== null && charge.bankAccountId === null;
}
