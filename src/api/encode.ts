import { awaitingCustomer, customerIdShown } from "../domain/charge.js";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { AsyncStatus, ChargeStatus, RefundStatus, type ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { ErrorBodySchema, type ErrorBody } from "../../gen/payments/v1/errors_pb.js";
import {
  AsyncPaymentRequestSchema,
  ChargeSchema,
  ContractSchema,
  MandateSchema,
  type Mandate,
  CustomerSchema,
  DeliveryAttemptSchema,
  EventSchema,
  RefundErrorSchema,
  RefundSchema,
  StopRequestSchema,
  type StopRequest,
  type AsyncPaymentRequest,
  type Charge,
  type Contract,
  type Customer,
  type Event,
  type Refund,
} from "../../gen/payments/v1/resources_pb.js";
import { errorTypeMessages, errorTypeName } from "../domain/payment-failure.js";
import { genericCodeOf } from "../errors.js";
import type { MandateRecord } from "../flows/mandates.js";
import type { StopRequestRecord } from "../domain/stop-request.js";
import type { AsyncRequestRecord } from "../domain/async-request.js";
import { refundableRemainder, refundedIncludingPending } from "../domain/refund.js";
import type {
  ChargeRecord,
  ContractRecord,
  CustomerRecord,
  DeliveryAttemptRecord,
  EventRecord,
  RefundRecord,
} from "../domain/records.js";

/** A charge's failure: its ErrorType, the message (the type's default when none was kept) and the generic code. */
export function encodeErrorBody(code: ErrorType, message: string | null | undefined): ErrorBody {
  const name = errorTypeName(code);
  return create(ErrorBodySchema, {
    code,
    message: message || errorTypeMessages[code],
    genericCode: genericCodeOf(name) ?? "",
  });
}

/** Records → response messages, with the contract's field names (camelCase on the wire, docs/reference/contract.md#wire-format). */
export function encodeCharge(
  charge: ChargeRecord,
  refunds: RefundRecord[] = [],
  refundsTruncated = false,
  debitDate?: string,
): Charge {
  const failed = charge.status === ChargeStatus.FAILURE;
  return create(ChargeSchema, {
    chargeId: charge.id,
    chargeStatus: charge.status,
    description: charge.description,
    initialAmount: charge.amount + charge.discount,
    finalAmount: charge.amount,
    currency: "JPY",
    createdAt: timestampFromDate(charge.createdAt),
    updatedAt: timestampFromDate(charge.updatedAt),
    // docs/reference/contract.md#charge-status: error is set only when chargeStatus is CHARGE_STATUS_FAILURE.
    error: failed ? encodeErrorBody(charge.errorType, charge.errorMessage) : undefined,
    customerId: customerIdShown(charge),
    metadata: charge.metadata,
    onSessionChargeId: charge.onSessionId ?? "",
    apiSource: charge.apiSource,
    refundedAmount: refundedIncludingPending(charge),
    refundableAmount: refundableRemainder(charge),
    refunds: refunds.map(encodeRefund),
    refundsTruncated,
    requestId: charge.requestId ?? "",
    debitDate,
    awaitingCustomer: awaitingCustomer(charge),
  });
}

export function encodeRefund(refund: RefundRecord): Refund {
  return create(RefundSchema, {
    refundId: refund.id,
    chargeId: refund.chargeId,
    amount: refund.amount,
    status: refund.status,
    reason: refund.reason,
    metadata: refund.metadata,
    createdAt: timestampFromDate(refund.createdAt),
    updatedAt: timestampFromDate(refund.updatedAt),
    error:
      refund.status === RefundStatus.FAILED
        ? create(RefundErrorSchema, { code: "refund_failed", message: refund.errorMessage })
        : undefined,
    cancellation: refund.cancellation,
  });
}

export function encodeContract(contract: ContractRecord, merchantName: string, mandate?: MandateRecord): Contract {
  return create(ContractSchema, {
    tokenId: contract.id,
    status: contract.status,
    merchantName,
    metadata: contract.metadata,
    createdAt: timestampFromDate(contract.createdAt),
    updatedAt: timestampFromDate(contract.updatedAt),
    customerId: contract.customerId,
    mandate: mandate && encodeMandate(mandate),
  });
}

/** The mandate summary: the account masked, its details only as a hash. */
export function encodeMandate(mandate: MandateRecord): Mandate {
  return create(MandateSchema, {
    id: mandate.id,
    account: mandate.summary,
    verification: mandate.method,
    termsVersion: mandate.termsVersion,
    acceptedAt: timestampFromDate(mandate.acceptedAt),
    clientAddress: mandate.clientAddress,
    userAgent: mandate.userAgent,
    accountHash: mandate.accountHash,
    paymentLinkId: mandate.linkId,
    verifiedAt: mandate.verifiedAt ? timestampFromDate(mandate.verifiedAt) : undefined,
  });
}

export function encodeCustomer(customer: CustomerRecord): Customer {
  return create(CustomerSchema, {
    id: customer.id,
    email: customer.email,
    linkInitialized: customer.linkInitialized,
    activated: customer.activated,
    status: { payment: customer.paymentStatus, kyc: customer.kycStatus },
    name: customer.name,
    katakanaLastName: customer.katakanaLastName,
    katakanaFirstName: customer.katakanaFirstName,
    address: customer.address,
    birthDate: customer.birthDate,
    gender: customer.gender,
    metadata: customer.metadata,
    createdAt: timestampFromDate(customer.createdAt),
    updatedAt: timestampFromDate(customer.updatedAt),
    kycRejectionReason: customer.kycRejectionReason,
  });
}

/** A webhook event with its delivery attempts (oldest first) and the exact content JSON it carries. */
export function encodeEvent(event: EventRecord, attempts: DeliveryAttemptRecord[]): Event {
  return create(EventSchema, {
    id: event.id,
    eventType: event.eventType,
    eventTypeName: event.eventTypeName,
    createdAt: timestampFromDate(event.createdAt),
    contentJson: event.contentJson,
    deliveryStatus: event.deliveryStatus,
    attempts: attempts.map((attempt) =>
      create(DeliveryAttemptSchema, {
        attemptedAt: timestampFromDate(attempt.attemptedAt),
        httpStatus: attempt.httpStatus,
        error: attempt.error,
        durationMs: attempt.durationMs,
      }),
    ),
    nextAttemptAt: timestampFromDate(event.nextAttemptAt),
    chargeId: event.chargeId,
  });
}

/** An async off-session request; its error is set once it failed (FAILED or FAILED_TO_START). */
export function encodeAsyncRequest(request: AsyncRequestRecord): AsyncPaymentRequest {
  const failed = request.status === AsyncStatus.FAILED || request.status === AsyncStatus.FAILED_TO_START;
  return create(AsyncPaymentRequestSchema, {
    requestId: request.id,
    status: request.status,
    chargeId: request.chargeId,
    attempts: request.attempts,
    error: failed ? encodeErrorBody(request.errorType, request.errorMessage) : undefined,
    createdAt: timestampFromDate(request.createdAt),
    updatedAt: timestampFromDate(request.updatedAt),
  });
}

export function encodeStopRequest(request: StopRequestRecord): StopRequest {
  return create(StopRequestSchema, {
    id: request.id,
    contractId: request.contractId,
    customerId: request.customerId,
    reason: request.reason,
    requestedAt: timestampFromDate(request.requestedAt),
  });
}
