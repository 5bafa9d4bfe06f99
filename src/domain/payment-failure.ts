import { PaymentErrorCode, ErrorType, OnSessionPaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";

/** A catalogued code: an ErrorType or OnSessionPaymentErrorCode name, as the spec spells it. */
export type CataloguedCode = keyof typeof ErrorType | keyof typeof OnSessionPaymentErrorCode;

/**
 * The one way the domain and the flows say "this request fails": the domain code that decides
 * the protocol status, the catalogued code merchants branch on, and a message for humans.
 */
export class PaymentFailure extends Error {
  constructor(
    readonly paymentErrorCode: PaymentErrorCode,
    message: string,
    readonly code?: CataloguedCode,
    readonly field?: string,
  ) {
    super(message);
    this.name = "PaymentFailure";
  }
}

/** Default messages of the spec's charge processing error table. */
export const errorTypeMessages: Readonly<Record<ErrorType, string>> = Object.freeze({
  [ErrorType.UNSPECIFIED]: "Payment failed. Please contact support.",
  [ErrorType.PAYMENT_VALIDATION_FAILED]: "Invalid payment request. Review input data.",
  [ErrorType.PAYMENT_GATEWAY_UNAVAILABLE]: "Payment gateway currently unavailable",
  [ErrorType.PAYMENT_GATEWAY_FAILED]: "Payment gateway rejected request",
  [ErrorType.PAYMENT_CHARGE_FAILED]: "Payment failed. Please contact support.",
  [ErrorType.PAYMENT_CHARGE_REJECTED]: "Customer has not completed KYC",
  [ErrorType.PAYMENT_CHARGE_OVER_LIMIT]: "Payment exceeds allowed limit",
  [ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS]: "Customer has insufficient funds",
  [ErrorType.PAYMENT_LINK_EXPIRED]: "Payment link has expired",
  [ErrorType.PAYMENT_CUSTOMER_NOT_FOUND]: "Customer ID not found",
  [ErrorType.PAYMENT_CUSTOMER_INACTIVE]: "Customer is not active. Issue a new payment link for them to complete.",
});

/** spec: "Mapping of triggerError value to PaymentErrorCode" (any other valid ErrorType is OTHER). */
export function triggeredPaymentErrorCode(errorType: ErrorType): PaymentErrorCode {
  switch (errorType) {
    case ErrorType.PAYMENT_VALIDATION_FAILED:
      return PaymentErrorCode.BAD_REQUEST;
    case ErrorType.PAYMENT_CHARGE_FAILED:
      return PaymentErrorCode.INTERNAL;
    case ErrorType.PAYMENT_LINK_EXPIRED:
      return PaymentErrorCode.EXPIRED;
    case ErrorType.PAYMENT_GATEWAY_FAILED:
      return PaymentErrorCode.REJECTED;
    case ErrorType.PAYMENT_GATEWAY_UNAVAILABLE:
      return PaymentErrorCode.UNDER_MAINTENANCE;
    case ErrorType.PAYMENT_CHARGE_OVER_LIMIT:
      return PaymentErrorCode.OVER_LIMIT;
    case ErrorType.PAYMENT_CHARGE_REJECTED:
      return PaymentErrorCode.KYC_REQUIRED;
    case ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS:
      return PaymentErrorCode.INSUFFICIENT_FUNDS;
    default:
      return PaymentErrorCode.OTHER;
  }
}

/** How a real (not triggered) charge error is reported synchronously: customer errors are 400s. */
export function paymentErrorCodeFor(errorType: ErrorType): PaymentErrorCode {
  if (errorType === ErrorType.PAYMENT_CUSTOMER_NOT_FOUND) return PaymentErrorCode.CUSTOMER_NOT_FOUND;
  if (errorType === ErrorType.PAYMENT_CUSTOMER_INACTIVE) return PaymentErrorCode.CUSTOMER_INACTIVE;
  return triggeredPaymentErrorCode(errorType);
}

/** The catalogued name of an ErrorType, e.g. ERROR_TYPE_PAYMENT_CHARGE_FAILED. */
export function errorTypeName(errorType: ErrorType): CataloguedCode {
  return `ERROR_TYPE_${ErrorType[errorType]}` as CataloguedCode;
}

/** A charge error as a request failure: the ErrorType is the catalogued code. */
export function chargeFailure(
  errorType: ErrorType,
  message = errorTypeMessages[errorType],
  paymentErrorCode = paymentErrorCodeFor(errorType),
): PaymentFailure {
  return new PaymentFailure(paymentErrorCode, message, errorTypeName(errorType));
}

/** A field the rules declared in the .proto let through but the domain refuses: VALIDATION_FAILED naming it. */
export function validationFailure(field: string, reason: string): PaymentFailure {
  return new PaymentFailure(PaymentErrorCode.BAD_REQUEST, `${field}: ${reason}`, errorTypeName(ErrorType.PAYMENT_VALIDATION_FAILED), field);
}
