import {
  ChargeStatus,
  ContractStatus,
  ErrorType,
  EventType,
  PaymentAuthorizationStatus,
  PaymentWorkflow,
} from "../../gen/payments/v1/enums_pb.js";
import { transitionCharge } from "./charge.js";
import { transitionContract } from "./contract.js";
import { triggeredErrorMessage } from "./error-trigger.js";
import { workflowCreatesContract, type LinkState, type PaymentLinkRecord } from "./payment-link.js";
import type { ChargeRecord, ContractRecord, CustomerRecord } from "./records.js";

/** An on-session payment as the rules see it: the link and the records it drives. */
export interface OnSessionPayment {
  link: PaymentLinkRecord;
  /** The trx-* charge, for workflows with a price. */
  charge: ChargeRecord | undefined;
  /** The contract the link sets up (CONTRACT, CONTRACT_WITH_CHARGE); the active one is never touched. */
  contract: ContractRecord | undefined;
  customer: CustomerRecord;
}

/** What a step changes: only the records returned changed; events go to the outbox with them. */
export interface OnSessionChanges {
  linkState: LinkState;
  charge?: ChargeRecord;
  contract?: ContractRecord;
  customer?: CustomerRecord;
  /**
   * In the order they are written: CHARGE_SUCCESS / CHARGE_FAIL (or the test-trigger pair) about the
   * charge, CONTRACT_ACTIVATED about the contract. TEST_CHARGE_CREATED shows the charge as it was.
   */
  events: EventType[];
}

/** What executing the payment came to: the bank's answer, or the KYC refusal. */
export type ApprovalResult = { ok: true } | { ok: false; errorType: ErrorType; message?: string };

function ownContract(payment: OnSessionPayment): ContractRecord | undefined {
  return workflowCreatesContract(payment.link.workflow) ? payment.contract : undefined;
}

/** The approval is claimed: a first-charge contract now waits for its charge (PENDING_CHARGE). */
export function claimChanges(payment: OnSessionPayment, now: Date): OnSessionChanges {
  const contract = ownContract(payment);
  if (payment.link.workflow === PaymentWorkflow.CONTRACT_WITH_CHARGE && contract?.status === ContractStatus.INITIAL) {
    return {
      linkState: "approving",
      contract: transitionContract(contract, ContractStatus.PENDING_CHARGE, now),
      events: [],
    };
  }
  return { linkState: "approving", events: [] };
}

/** KYC submitted but undecided at approval: the charge and the new contract wait for eKYC. */
export function holdForKycChanges(payment: OnSessionPayment, now: Date): OnSessionChanges {
  const contract = ownContract(payment);
  return {
    linkState: "waiting_kyc",
    charge: payment.charge && transitionCharge(payment.charge, ChargeStatus.WAITING_EKYC, now),
    contract: contract && transitionContract(contract, ContractStatus.WAITING_EKYC, now),
    events: [],
  };
}

/**
 * The payment executed: on success the charge succeeds and a new contract is approved and
 * activated (the customer becomes chargeable: activated, status.payment AUTHORIZED); on failure
 * the charge fails with the ErrorType and a new contract is cancelled.
 */
export function settleChanges(payment: OnSessionPayment, result: ApprovalResult, now: Date): OnSessionChanges {
  const contract = ownContract(payment);
  if (result.ok) {
    const activated =
      contract &&
      transitionContract(transitionContract(contract, ContractStatus.APPROVED, now), ContractStatus.ACTIVATED, now);
    const events: EventType[] = [];
    if (payment.charge) events.push(EventType.CHARGE_SUCCESS);
    if (activated) events.push(EventType.CONTRACT_ACTIVATED);
    return {
      linkState: "completed",
      charge: payment.charge && transitionCharge(payment.charge, ChargeStatus.SUCCESS, now),
      contract: activated,
      customer: activated
        ? { ...payment.customer, activated: true, paymentStatus: PaymentAuthorizationStatus.AUTHORIZED, updatedAt: now }
        : undefined,
      events,
    };
  }
  return {
    linkState: "failed",
    charge:
      payment.charge &&
      transitionCharge(payment.charge, ChargeStatus.FAILURE, now, {
        errorType: result.errorType,
        message: result.message,
      }),
    contract: contract && transitionContract(contract, ContractStatus.CANCELLED, now),
    events: payment.charge ? [EventType.CHARGE_FAIL] : [],
  };
}

/**
 * docs/reference/contract.md#approve-side-effects for a sandbox triggerError — the charge (when
 * the workflow has one) fails with the ErrorType, with charge.created then charge.fail; a contract
 * the link set up is cancelled. CHARGE and ONE_TIME_CHARGE: failed transaction and charge.fail;
 * CONTRACT: cancelled contract only; CONTRACT_WITH_CHARGE: all three.
 */
export function triggeredFailureChanges(payment: OnSessionPayment, errorType: ErrorType, now: Date): OnSessionChanges {
  const contract = ownContract(payment);
  return {
    linkState: "failed",
    charge:
      payment.charge &&
      transitionCharge(payment.charge, ChargeStatus.FAILURE, now, {
        errorType,
        message: triggeredErrorMessage(errorType),
      }),
    contract: contract && transitionContract(contract, ContractStatus.CANCELLED, now),
    events: payment.charge ? [EventType.TEST_CHARGE_CREATED, EventType.TEST_CHARGE_FAIL] : [],
  };
}

/** docs/reference/contract.md#link-expiry: a link that lapses unpaid fails its charge with ERROR_TYPE_PAYMENT_LINK_EXPIRED; its contract becomes EXPIRED. */
export function expiryChanges(payment: OnSessionPayment, now: Date): OnSessionChanges {
  const contract = ownContract(payment);
  return {
    linkState: "expired",
    charge:
      payment.charge &&
      transitionCharge(payment.charge, ChargeStatus.FAILURE, now, { errorType: ErrorType.PAYMENT_LINK_EXPIRED }),
    contract: contract && transitionContract(contract, ContractStatus.EXPIRED, now),
    events: payment.charge ? [EventType.CHARGE_FAIL] : [],
  };
}
