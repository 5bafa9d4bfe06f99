/**
 * Errors: which to throw, when (docs/reference/errors.md, docs/reference/contract.md#errors).
 *
 * - `PaymentFailure` (src/domain/payment-failure.ts): a payment request fails in a way the contract
 *   catalogues: a `PaymentErrorCode` (decides the Connect code below) and, when merchants branch on
 *   it, a catalogued `code` (ERROR_TYPE_…, ON_SESSION_PAYMENT_ERROR_CODE_…), with `field`, `context`
 *   (ids to follow up) and `rule` as options.
 * - `RequestRefusal` (src/domain/request-refusal.ts): everything else a caller did wrong or may not
 *   do (no session, a role, a lock, a precondition, an unknown id outside payments): a `kind`
 *   (decides the Connect code) and options: a stable `reason` (named explicitly, never built from
 *   an identifier's spelling), `retryAfterSeconds`, `facts`.
 * - `ConnectError`: only the server layer (wire checks, interceptors) builds one itself; flows never do.
 * - Anything else thrown is a bug: the client sees `internal` and the log the stack.
 *
 * The HTTP status of each Connect code is the protocol's (connect's `codeToHttpStatus`).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJson } from "@connectrpc/connect/protocol-connect";
import { create } from "@bufbuild/protobuf";
import {
  ErrorInfoSchema,
  RetryInfoSchema,
  type ErrorInfo,
  type RetryInfo,
} from "../gen/google/rpc/error_details_pb.js";
import { ErrorType, OnSessionPaymentErrorCode, PaymentErrorCode } from "../gen/payments/v1/enums_pb.js";
import { PaymentErrorSchema } from "../gen/payments/v1/errors_pb.js";
import { invalidTriggerMessage, triggerErrorKey, triggeredErrorMessage } from "./domain/error-trigger.js";
import { PaymentFailure, errorTypeMessages, errorTypeName } from "./domain/payment-failure.js";
import { RequestRefusal, type RefusalKind } from "./domain/request-refusal.js";

/**
 * The one error table (docs/reference/contract.md#errors): PaymentErrorCode → Connect code. The Connect
 * protocol fixes the HTTP status of each code (400, 404, 503, 500; 429 for a rate-limited call,
 * with Retry-After), on the RPC paths and on the plain HTTP paths alike.
 */
const connectCodeOf: Readonly<Record<PaymentErrorCode, Code>> = Object.freeze({
  [PaymentErrorCode.BAD_REQUEST]: Code.InvalidArgument,
  [PaymentErrorCode.CUSTOMER_NOT_FOUND]: Code.InvalidArgument,
  [PaymentErrorCode.CUSTOMER_INACTIVE]: Code.InvalidArgument,
  [PaymentErrorCode.NOT_FOUND]: Code.NotFound,
  [PaymentErrorCode.UNDER_MAINTENANCE]: Code.Unavailable,
  [PaymentErrorCode.UNSPECIFIED]: Code.Internal,
  [PaymentErrorCode.INTERNAL]: Code.Internal,
  [PaymentErrorCode.EXPIRED]: Code.Internal,
  [PaymentErrorCode.REJECTED]: Code.Internal,
  [PaymentErrorCode.OVER_LIMIT]: Code.Internal,
  [PaymentErrorCode.KYC_REQUIRED]: Code.Internal,
  [PaymentErrorCode.INSUFFICIENT_FUNDS]: Code.Internal,
  [PaymentErrorCode.OTHER]: Code.Internal,
});

/** docs/reference/contract.md#error-triggers: triggerError value → PaymentErrorCode; any other valid ErrorType is OTHER. */
export const paymentErrorCodeOfTriggeredErrorType: Readonly<Record<ErrorType, PaymentErrorCode>> = Object.freeze({
  [ErrorType.UNSPECIFIED]: PaymentErrorCode.OTHER,
  [ErrorType.PAYMENT_VALIDATION_FAILED]: PaymentErrorCode.BAD_REQUEST,
  [ErrorType.PAYMENT_CHARGE_FAILED]: PaymentErrorCode.INTERNAL,
  [ErrorType.PAYMENT_LINK_EXPIRED]: PaymentErrorCode.EXPIRED,
  [ErrorType.PAYMENT_GATEWAY_FAILED]: PaymentErrorCode.REJECTED,
  [ErrorType.PAYMENT_GATEWAY_UNAVAILABLE]: PaymentErrorCode.UNDER_MAINTENANCE,
  [ErrorType.PAYMENT_CHARGE_OVER_LIMIT]: PaymentErrorCode.OVER_LIMIT,
  [ErrorType.PAYMENT_CHARGE_REJECTED]: PaymentErrorCode.KYC_REQUIRED,
  [ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS]: PaymentErrorCode.INSUFFICIENT_FUNDS,
  [ErrorType.PAYMENT_CUSTOMER_NOT_FOUND]: PaymentErrorCode.OTHER,
  [ErrorType.PAYMENT_CUSTOMER_INACTIVE]: PaymentErrorCode.OTHER,
});

/** A real (not triggered) charge error reported synchronously: the same, but customer errors are 400s. */
export const paymentErrorCodeOfErrorType: Readonly<Record<ErrorType, PaymentErrorCode>> = Object.freeze({
  ...paymentErrorCodeOfTriggeredErrorType,
  [ErrorType.PAYMENT_CUSTOMER_NOT_FOUND]: PaymentErrorCode.CUSTOMER_NOT_FOUND,
  [ErrorType.PAYMENT_CUSTOMER_INACTIVE]: PaymentErrorCode.CUSTOMER_INACTIVE,
});

/** A charge error as a request failure: the ErrorType is the catalogued code. */
export function chargeFailure(errorType: ErrorType, message = errorTypeMessages[errorType]): PaymentFailure {
  return new PaymentFailure(paymentErrorCodeOfErrorType[errorType], message, { code: errorTypeName(errorType) });
}

/** A sandbox triggerError as a request failure; `context` names the failed charge (chargeId, requestId). */
export function triggeredFailure(errorType: ErrorType, context?: Record<string, string>): PaymentFailure {
  return new PaymentFailure(paymentErrorCodeOfTriggeredErrorType[errorType], triggeredErrorMessage(errorType), {
    code: errorTypeName(errorType),
    context,
  });
}

/** docs/reference/contract.md#error-triggers: an invalid or unrecognised triggerError value is a BAD_REQUEST. */
export function invalidTriggerFailure(value: string, field: string): PaymentFailure {
  return new PaymentFailure(PaymentErrorCode.BAD_REQUEST, `${field}.${invalidTriggerMessage(value)}`, {
    code: errorTypeName(ErrorType.PAYMENT_VALIDATION_FAILED),
    field: `${field}.${triggerErrorKey}`,
  });
}

const connectCodeOfRefusal: Readonly<Record<RefusalKind, Code>> = Object.freeze({
  unauthenticated: Code.Unauthenticated,
  forbidden: Code.PermissionDenied,
  conflict: Code.InvalidArgument,
  in_flight: Code.Aborted,
  not_found: Code.NotFound,
  rate_limited: Code.ResourceExhausted,
  precondition: Code.FailedPrecondition,
  invalid: Code.InvalidArgument,
});

/**
 * The generic codes of the spec's on-session reference, which a merchant porting code branches on,
 * declared once: ErrorInfo.metadata.genericCode of an error, and genericCode in a charge's error
 * body. CUSTOMER_EXISTS is never answered: an on-session request with the e-mail of an existing
 * customer reuses that customer (docs/reference/errors.md, "Generic codes").
 */
export type GenericCode = "INVALID_REQUEST" | "PAYMENT_EXPIRED" | "KYC_REQUIRED" | "CUSTOMER_EXISTS" | "INVALID_AMOUNT";

const genericCodeOfCode: Readonly<Record<string, GenericCode>> = Object.freeze({
  ERROR_TYPE_PAYMENT_VALIDATION_FAILED: "INVALID_REQUEST",
  ON_SESSION_PAYMENT_ERROR_CODE_VALIDATION_FAILED: "INVALID_REQUEST",
  ON_SESSION_PAYMENT_ERROR_CODE_MISSING_REDIRECT_URLS: "INVALID_REQUEST",
  ON_SESSION_PAYMENT_ERROR_CODE_MISSING_REQUIRED_PARAMETERS: "INVALID_REQUEST",
  ON_SESSION_PAYMENT_ERROR_CODE_MISSING_CHARGE: "INVALID_REQUEST",
  ERROR_TYPE_PAYMENT_LINK_EXPIRED: "PAYMENT_EXPIRED",
  ERROR_TYPE_PAYMENT_CHARGE_REJECTED: "KYC_REQUIRED",
});

/** Field rules (ids declared in the .proto) whose refusal has a generic code of its own. */
const genericCodeOfRule: Readonly<Record<string, GenericCode>> = Object.freeze({ INVALID_AMOUNT: "INVALID_AMOUNT" });

/** The generic code of a catalogued code, refined by the field rule that refused the request. */
export function genericCodeOf(code: string, rule?: string): GenericCode | undefined {
  return (rule && genericCodeOfRule[rule]) || genericCodeOfCode[code];
}

/** Error details reach clients in details[] (JSON in details[].debug on the Connect protocol). */
export const errorDomain = "furikomi.payments.v1";

/** Turns a domain failure into the ConnectError the client sees; anything else passes through. */
export function toConnectError(error: unknown): ConnectError | undefined {
  if (error instanceof PaymentFailure) return paymentFailureToConnectError(error);
  if (error instanceof RequestRefusal) return refusalToConnectError(error);
  if (error instanceof ConnectError) return error;
  return undefined;
}

/**
 * Every 400 names a catalogued code a client can branch on: a refusal that has none (an
 * idempotency key reused with another request, a precondition, an unusable page token, …) gets a
 * google.rpc.ErrorInfo whose reason is the method's validation code (`methodCode`).
 */
export function withErrorInfo(error: ConnectError, methodCode: string): ConnectError {
  if (codeToHttpStatus(error.code) !== 400) return error;
  const hasInfo = error.details.some((d) => ("desc" in d ? d.desc.typeName : d.type) === ErrorInfoSchema.typeName);
  if (hasInfo) return error;
  const metadata: Record<string, string> = {};
  const genericCode = genericCodeOf(methodCode);
  if (genericCode) metadata.genericCode = genericCode;
  error.details.push({
    desc: ErrorInfoSchema,
    value: create(ErrorInfoSchema, { reason: methodCode, domain: errorDomain, metadata }),
  });
  return error;
}

function refusalToConnectError(refusal: RequestRefusal): ConnectError {
  const details: Array<
    { desc: typeof ErrorInfoSchema; value: ErrorInfo } | { desc: typeof RetryInfoSchema; value: RetryInfo }
  > = [];
  if (refusal.reason)
    details.push({
      desc: ErrorInfoSchema,
      value: create(ErrorInfoSchema, { reason: refusal.reason, domain: errorDomain, metadata: { ...refusal.facts } }),
    });
  const metadata: Record<string, string> = {};
  if (refusal.retryAfterSeconds) {
    metadata["retry-after"] = String(refusal.retryAfterSeconds);
    details.push({
      desc: RetryInfoSchema,
      value: create(RetryInfoSchema, { retryDelay: { seconds: BigInt(refusal.retryAfterSeconds) } }),
    });
  }
  return new ConnectError(refusal.message, connectCodeOfRefusal[refusal.kind], metadata, details);
}

function paymentFailureToConnectError(failure: PaymentFailure): ConnectError {
  const paymentErrorCode = `PAYMENT_ERROR_CODE_${PaymentErrorCode[failure.paymentErrorCode]}`;
  const details = [];
  if (failure.code) {
    const metadata: Record<string, string> = { ...failure.context, paymentErrorCode };
    if (failure.field) metadata.field = failure.field;
    const genericCode = genericCodeOf(failure.code, failure.rule);
    if (genericCode) metadata.genericCode = genericCode;
    details.push(
      {
        desc: ErrorInfoSchema,
        value: create(ErrorInfoSchema, { reason: failure.code, domain: errorDomain, metadata }),
      },
      {
        desc: PaymentErrorSchema,
        value: create(PaymentErrorSchema, {
          code: failure.code,
          paymentErrorCode: failure.paymentErrorCode,
          errorType: enumValue(ErrorType, failure.code, "ERROR_TYPE_"),
          onSessionErrorCode: enumValue(OnSessionPaymentErrorCode, failure.code, "ON_SESSION_PAYMENT_ERROR_CODE_"),
          field: failure.field ?? "",
        }),
      },
    );
  }
  return new ConnectError(failure.message, connectCodeOf[failure.paymentErrorCode], undefined, details);
}

function enumValue(enumObject: Record<string, string | number>, code: string, prefix: string): number {
  if (!code.startsWith(prefix)) return 0;
  const value = enumObject[code.slice(prefix.length)];
  return typeof value === "number" ? value : 0;
}

/** A payment error or refusal as an idempotency key stores it (Connect error JSON); undefined for the unexpected. */
export function storedErrorAnswer(error: unknown): { json: string; httpStatus: number } | undefined {
  const connectError = toConnectError(error);
  if (!connectError) return undefined;
  return {
    json: JSON.stringify(errorToJson(connectError, { alwaysEmitImplicit: true })),
    httpStatus: codeToHttpStatus(connectError.code),
  };
}
