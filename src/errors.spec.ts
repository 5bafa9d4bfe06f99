import { describe, expect, it } from "vitest";
import { ErrorType, PaymentErrorCode } from "../gen/payments/v1/enums_pb.js";
import { codeToHttpStatus } from "@connectrpc/connect/protocol-connect";
import { paymentErrorCodeOfTriggeredErrorType, toConnectError, triggeredFailure } from "./errors.js";

describe("the trigger table (docs/reference/contract.md#error-triggers)", () => {
  const expected: Array<[ErrorType, PaymentErrorCode, number]> = [
    [ErrorType.PAYMENT_VALIDATION_FAILED, PaymentErrorCode.BAD_REQUEST, 400],
    [ErrorType.PAYMENT_CHARGE_FAILED, PaymentErrorCode.INTERNAL, 500],
    [ErrorType.PAYMENT_LINK_EXPIRED, PaymentErrorCode.EXPIRED, 500],
    [ErrorType.PAYMENT_GATEWAY_FAILED, PaymentErrorCode.REJECTED, 500],
    [ErrorType.PAYMENT_GATEWAY_UNAVAILABLE, PaymentErrorCode.UNDER_MAINTENANCE, 503],
    [ErrorType.PAYMENT_CHARGE_OVER_LIMIT, PaymentErrorCode.OVER_LIMIT, 500],
    [ErrorType.PAYMENT_CHARGE_REJECTED, PaymentErrorCode.KYC_REQUIRED, 500],
    [ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS, PaymentErrorCode.INSUFFICIENT_FUNDS, 500],
    [ErrorType.PAYMENT_CUSTOMER_NOT_FOUND, PaymentErrorCode.OTHER, 500],
    [ErrorType.PAYMENT_CUSTOMER_INACTIVE, PaymentErrorCode.OTHER, 500],
  ];

  it.each(expected)("ErrorType %i → PaymentErrorCode %i → HTTP %i", (errorType, paymentErrorCode, status) => {
    expect(paymentErrorCodeOfTriggeredErrorType[errorType]).toBe(paymentErrorCode);
    const error = toConnectError(triggeredFailure(errorType, { chargeId: "trx-x" }))!;
    expect(codeToHttpStatus(error.code)).toBe(status);
  });
});
