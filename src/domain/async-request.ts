import { AsyncStatus, ErrorType, PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { triggeredErrorMessage } from "./error-trigger.js";
import { PaymentFailure, errorTypeMessages } from "./payment-failure.js";

/** An asynchronous off-session request (pwf-*) and the charge (trx-*) it runs. */
export interface AsyncRequestRecord {
  id: string;
  merchantId: string;
  chargeId: string;
  status: AsyncStatus;
  /** Bank calls made so far. */
  attempts: number;
  forceKyc: boolean;
  /** Set when the status is FAILED or FAILED_TO_START. */
  errorType: ErrorType;
  errorMessage: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The async request state machine (docs/reference/contract.md#async-status). FAILED_TO_START is where a request that
 * cannot start is born; every other request is born PENDING.
 *
 *   PENDING ──► RUNNING ──► SUCCEEDED
 *                 │ ▲  └──► FAILED (error set)
 *                 └─┘ a retry after a retryable bank failure, or a resume after a crash
 */
const allowed: Readonly<Record<AsyncStatus, readonly AsyncStatus[]>> = Object.freeze({
  [AsyncStatus.UNSPECIFIED]: [],
  [AsyncStatus.PENDING]: [AsyncStatus.RUNNING],
  [AsyncStatus.RUNNING]: [AsyncStatus.RUNNING, AsyncStatus.SUCCEEDED, AsyncStatus.FAILED],
  [AsyncStatus.SUCCEEDED]: [],
  [AsyncStatus.FAILED_TO_START]: [],
  [AsyncStatus.FAILED]: [],
});

export function isAsyncRequestFinal(status: AsyncStatus): boolean {
  return allowed[status].length === 0;
}

/**
 * A new request: PENDING; FAILED_TO_START with the ErrorType that kept it from starting; or, for a
 * sandbox triggerError, FAILED at once with the triggered ErrorType (it simulates a failed charge).
 */
export function newAsyncRequest(
  input: {
    id: string;
    merchantId: string;
    chargeId: string;
    forceKyc: boolean;
    refusal: ErrorType | undefined;
    triggered?: ErrorType;
  },
  now: Date,
): AsyncRequestRecord {
  const errorType = input.triggered ?? input.refusal;
  const status =
    input.triggered !== undefined
      ? AsyncStatus.FAILED
      : input.refusal !== undefined
        ? AsyncStatus.FAILED_TO_START
        : AsyncStatus.PENDING;
  return {
    id: input.id,
    merchantId: input.merchantId,
    chargeId: input.chargeId,
    status,
    attempts: 0,
    forceKyc: input.forceKyc,
    errorType: errorType ?? ErrorType.UNSPECIFIED,
    errorMessage:
      input.triggered !== undefined
        ? triggeredErrorMessage(input.triggered)
        : errorType === undefined
          ? ""
          : errorTypeMessages[errorType],
    createdAt: now,
    updatedAt: now,
  };
}

/** The request after a status change; refuses an illegal one. */
export function transitionAsyncRequest(
  request: AsyncRequestRecord,
  to: AsyncStatus,
  now: Date,
  change: { attempts?: number; failure?: { errorType: ErrorType; message: string } } = {},
): AsyncRequestRecord {
  if (!allowed[request.status].includes(to)) {
    throw new PaymentFailure(
      PaymentErrorCode.INTERNAL,
      `async request ${request.id} cannot go from ${AsyncStatus[request.status]} to ${AsyncStatus[to]}`,
    );
  }
  const next: AsyncRequestRecord = {
    ...request,
    status: to,
    attempts: change.attempts ?? request.attempts,
    updatedAt: now,
  };
  if (to === AsyncStatus.FAILED) {
    const errorType = change.failure?.errorType ?? ErrorType.PAYMENT_CHARGE_FAILED;
    next.errorType = errorType;
    next.errorMessage = change.failure?.message ?? errorTypeMessages[errorType];
  }
  return next;
}
