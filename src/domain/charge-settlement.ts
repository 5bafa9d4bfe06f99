import { AsyncStatus, ChargeStatus, type ErrorType, EventType } from "../../gen/payments/v1/enums_pb.js";
import { type AsyncRequestRecord, isAsyncRequestFinal, transitionAsyncRequest } from "./async-request.js";
import { transitionCharge } from "./charge.js";
import type { ChargeRecord } from "./records.js";
import { chargeEventContent } from "./webhook-content.js";

/**
 * What a bank answered about one charge, whatever the connector: the debit went through, or it
 * failed with the contract's ErrorType. `deactivatesContract`: the answer also ends the charge's
 * contract (a Zengin result 3 or 4, docs/reference/contract.md#zengin-results).
 */
export type ChargeSettlement =
  | { status: ChargeStatus.SUCCESS; deactivatesContract?: false }
  | { status: ChargeStatus.FAILURE; errorType: ErrorType; message: string; deactivatesContract?: boolean };

/** A bank's answer on a charge, with what the flow loaded (and locked) for it. */
export interface BankAnswerOnCharge {
  /** The charge as it is now, locked by the caller's transaction. */
  readonly charge: ChargeRecord;
  /** Its async request (pwf-*), if it has one. */
  readonly request: AsyncRequestRecord | undefined;
  readonly settlement: ChargeSettlement;
  /** The merchant's name, for the event's body. */
  readonly merchantName: string;
}

/** The charge event to record with a settlement (CHARGE_SUCCESS or CHARGE_FAIL). */
export interface ChargeEvent {
  readonly merchantId: string;
  readonly type: EventType.CHARGE_SUCCESS | EventType.CHARGE_FAIL;
  readonly chargeId: string;
  readonly content: object;
}

/** What to save for one answer: nothing but `charge` (as it stands) when the charge was no longer PENDING. */
export interface SettlementDecision {
  /** The charge after the answer: its next state when `settled`, else as it was. */
  readonly charge: ChargeRecord;
  /** True when the charge moved to SUCCESS or FAILURE now (save it, its request and its event). */
  readonly settled: boolean;
  /** The request's next state, when it has one not yet final. */
  readonly request?: AsyncRequestRecord;
  readonly event?: ChargeEvent;
  /** The contract to deactivate (if still ACTIVATED). */
  readonly deactivateContractId?: string;
  /** The bank took money for a charge that had already failed: its booking must be reversed. */
  readonly reverseBooking: boolean;
}

/**
 * "A bank answered this charge" (docs/architecture.md#settling-a-charge). A PENDING charge settles:
 * SUCCESS or FAILURE, its request (RUNNING first when it never ran) SUCCEEDED or FAILED, one
 * CHARGE_SUCCESS or CHARGE_FAIL event. A charge no longer PENDING keeps its outcome: the answer
 * changes nothing, except that money taken for a charge that already failed is given back
 * (reverseBooking), so the ledger follows the outcome the merchant was told.
 */
export function decideSettlement(answer: BankAnswerOnCharge, now: Date): SettlementDecision {
  const { charge, request, settlement } = answer;
  if (charge.status !== ChargeStatus.PENDING) {
    const reverseBooking = charge.status === ChargeStatus.FAILURE && settlement.status === ChargeStatus.SUCCESS;
    return { charge, settled: false, reverseBooking };
  }
  const failure =
    settlement.status === ChargeStatus.FAILURE
      ? { errorType: settlement.errorType, message: settlement.message }
      : undefined;
  const next = transitionCharge(charge, settlement.status, now, failure);
  return {
    charge: next,
    settled: true,
    request: request && !isAsyncRequestFinal(request.status) ? finishedRequest(request, failure, now) : undefined,
    event: {
      merchantId: next.merchantId,
      type: failure ? EventType.CHARGE_FAIL : EventType.CHARGE_SUCCESS,
      chargeId: next.id,
      content: chargeEventContent(next, answer.merchantName),
    },
    deactivateContractId: (settlement.deactivatesContract && charge.contractId) || undefined,
    reverseBooking: false,
  };
}

/** The request SUCCEEDED or FAILED, through RUNNING when the answer came before it ran. */
function finishedRequest(
  request: AsyncRequestRecord,
  failure: { errorType: ErrorType; message: string } | undefined,
  now: Date,
): AsyncRequestRecord {
  const running =
    request.status === AsyncStatus.RUNNING ? request : transitionAsyncRequest(request, AsyncStatus.RUNNING, now);
  return transitionAsyncRequest(running, failure ? AsyncStatus.FAILED : AsyncStatus.SUCCEEDED, now, { failure });
}
