import {
  ErrorType,
  OnSessionPaymentErrorCode,
  PaymentErrorCode,
  PaymentWorkflow,
} from "../../gen/payments/v1/enums_pb.js";
import { PaymentFailure, errorTypeMessages } from "./payment-failure.js";

/** What CreateOnSessionPayment knows once it has looked the customer up. */
export interface OnSessionFacts {
  /** buyer.customer_id was given (the existing-customer flow). */
  byCustomerId: boolean;
  /** charge.price, when given. */
  price: number | undefined;
  oneOff: boolean;
  /** The customer found by id (or by e-mail when no id was given), if any. */
  customer: { activeContract: boolean } | undefined;
}

function rejection(
  code: `ON_SESSION_PAYMENT_ERROR_CODE_${keyof typeof OnSessionPaymentErrorCode}`,
  paymentErrorCode: PaymentErrorCode,
  message: string,
): PaymentFailure {
  return new PaymentFailure(paymentErrorCode, message, { code });
}

/**
 * Which workflow an on-session request starts, or the synchronous rejection (docs/reference/contract.md#on-session-rejections;
 * docs/guide/on-session.md):
 *
 * | request                                            | workflow                 |
 * |----------------------------------------------------|--------------------------|
 * | one_off_charge with a price                        | ONE_TIME_CHARGE          |
 * | customer (by id or e-mail) with an active contract, price | CHARGE            |
 * | e-mail of a new or not yet active customer, price  | CONTRACT_WITH_CHARGE     |
 * | e-mail, no price                                   | CONTRACT                 |
 *
 * customer_id names an existing customer: without a price it is MISSING_CHARGE, unknown it is
 * CUSTOMER_NOT_FOUND, without an active contract it is CUSTOMER_INACTIVE (a new request by
 * e-mail gives that customer a new link instead).
 */
export function chooseOnSessionWorkflow(facts: OnSessionFacts): PaymentWorkflow {
  const hasPrice = facts.price !== undefined;
  if ((facts.byCustomerId || facts.oneOff) && !hasPrice) {
    throw rejection(
      "ON_SESSION_PAYMENT_ERROR_CODE_MISSING_CHARGE",
      PaymentErrorCode.BAD_REQUEST,
      "charge.price is required when charging an existing customer or a one-off charge",
    );
  }
  if (facts.byCustomerId && !facts.customer) {
    throw rejection(
      "ON_SESSION_PAYMENT_ERROR_CODE_CUSTOMER_NOT_FOUND",
      PaymentErrorCode.CUSTOMER_NOT_FOUND,
      errorTypeMessages[ErrorType.PAYMENT_CUSTOMER_NOT_FOUND],
    );
  }
  if (facts.byCustomerId && !facts.oneOff && !facts.customer?.activeContract) {
    throw rejection(
      "ON_SESSION_PAYMENT_ERROR_CODE_CUSTOMER_INACTIVE",
      PaymentErrorCode.CUSTOMER_INACTIVE,
      errorTypeMessages[ErrorType.PAYMENT_CUSTOMER_INACTIVE],
    );
  }
  if (facts.oneOff) return PaymentWorkflow.ONE_TIME_CHARGE;
  if (!hasPrice) return PaymentWorkflow.CONTRACT;
  return facts.customer?.activeContract ? PaymentWorkflow.CHARGE : PaymentWorkflow.CONTRACT_WITH_CHARGE;
}

/** The unexpected, reported with its catalogued code (docs/reference/contract.md#retry-guidance: often temporary, retry with backoff). */
export function onSessionInternalError(cause: unknown): PaymentFailure {
  const failure = rejection(
    "ON_SESSION_PAYMENT_ERROR_CODE_INTERNAL_ERROR",
    PaymentErrorCode.INTERNAL,
    "internal error while creating the payment; retry with backoff",
  );
  (failure as Error).cause = cause;
  return failure;
}
