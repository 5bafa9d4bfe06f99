import { ContractStatus, PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { PaymentFailure } from "./payment-failure.js";
import type { ContractRecord } from "./records.js";

/**
 * The contract state machine (docs/reference/contract.md#contract-status):
 *
 *   INITIAL ──► PENDING_CHARGE ──► WAITING_EKYC ──► APPROVED ──► ACTIVATED ──► DEACTIVATED
 *      │              │                 │               │
 *      └──────────────┴─────────────────┴───────────────┴──► EXPIRED (link lapsed) | CANCELLED
 */
const allowed: Readonly<Record<ContractStatus, readonly ContractStatus[]>> = Object.freeze({
  [ContractStatus.UNSPECIFIED]: [],
  [ContractStatus.INITIAL]: [
    ContractStatus.PENDING_CHARGE,
    ContractStatus.WAITING_EKYC,
    ContractStatus.APPROVED,
    ContractStatus.EXPIRED,
    ContractStatus.CANCELLED,
  ],
  [ContractStatus.PENDING_CHARGE]: [
    ContractStatus.WAITING_EKYC,
    ContractStatus.APPROVED,
    ContractStatus.EXPIRED,
    ContractStatus.CANCELLED,
  ],
  [ContractStatus.WAITING_EKYC]: [ContractStatus.APPROVED, ContractStatus.EXPIRED, ContractStatus.CANCELLED],
  [ContractStatus.APPROVED]: [ContractStatus.ACTIVATED, ContractStatus.CANCELLED],
  [ContractStatus.ACTIVATED]: [ContractStatus.DEACTIVATED, ContractStatus.CANCELLED],
  [ContractStatus.EXPIRED]: [],
  [ContractStatus.DEACTIVATED]: [],
  [ContractStatus.CANCELLED]: [],
});

export function canTransitionContract(from: ContractStatus, to: ContractStatus): boolean {
  return allowed[from].includes(to);
}

export function transitionContract(contract: ContractRecord, to: ContractStatus, now: Date): ContractRecord {
  if (!canTransitionContract(contract.status, to)) {
    throw new PaymentFailure(
      PaymentErrorCode.INTERNAL,
      `contract ${contract.id} cannot go from ${ContractStatus[contract.status]} to ${ContractStatus[to]}`,
    );
  }
  return { ...contract, status: to, updatedAt: now };
}
