import { AsyncStatus, ChargeStatus, ErrorType, RefundStatus } from "../../../gen/payments/v1/enums_pb.js";

/**
 * The in-memory model the property test holds the server to: what a merchant should see, written
 * from the documented rules (docs/), not from src/. One model per sequence, one merchant per sequence.
 */

export interface ModelAccount {
  balance: number;
  quota: number;
  reject: boolean;
  underMaintenance: boolean;
  /** Every booking: (reference, signed amount). */
  ledger: Array<{ reference: string; amount: number }>;
}

export interface ModelCustomer {
  id: string;
  /** The e-mail a second link (one-off, or a contract abandoned) is made for. */
  email: string;
  /** KYC approved (a customer whose held approval went on); the others never submitted it. */
  kycApproved?: boolean;
  contractId: string;
  /** An ACTIVATED contract and status.payment AUTHORIZED; false after a failed first charge. */
  active: boolean;
  /** The account the contract was approved with. */
  account: ModelAccount;
  /** Accounts approved on one-off payments besides the contract's, by their masked number. */
  otherAccounts?: Array<{ masked: string; account: ModelAccount }>;
}

export interface ModelCharge {
  id: string;
  customerId: string;
  amount: number;
  status: ChargeStatus;
  errorType?: ErrorType;
  succeededAt?: number;
  /** The async request (pwf-*) behind it, if any. */
  requestId?: string;
  requestStatus?: AsyncStatus;
  /** The engine's job: attempts made and when it next runs (async charges only). */
  jobAttempts: number;
  jobRunAt?: number;
  /** Settled refunds and accepted-but-pending refunds, in yen. */
  refundedSettled: number;
  refundedPending: number;
  /** The account it is paid from when not its customer's contract account (a one-off from another account). */
  account?: ModelAccount;
}

export interface ModelRefund {
  id: string;
  chargeId: string;
  amount: number;
  status: RefundStatus;
  cancellation: boolean;
  /** Metadata sandboxRefundOutcome=fail: fails whenever it settles. */
  failsAtSettlement: boolean;
  jobAttempts: number;
  jobRunAt?: number;
}

export interface Model {
  now: number;
  bankMaintenance: boolean;
  customers: ModelCustomer[];
  charges: ModelCharge[];
  refunds: ModelRefund[];
  /** Idempotency keys of async requests, when they were first used, and what they answered. */
  asyncKeys: Array<{
    key: string;
    usedAt: number;
    customerId: string;
    price: number;
    forceKyc: boolean;
    requestId: string;
    chargeId: string;
    status: AsyncStatus;
  }>;
}

/** docs/guide/idempotency.md: a key is kept 72 hours from its first use. */
const keyLifetimeMs = 72 * 3_600_000;

export function liveAsyncKeys(model: Readonly<Model>): Model["asyncKeys"] {
  return model.asyncKeys.filter((k) => model.now - k.usedAt < keyLifetimeMs);
}

export function newModel(now: number): Model {
  return { now, bankMaintenance: false, customers: [], charges: [], refunds: [], asyncKeys: [] };
}

export function newAccount(balance: number): ModelAccount {
  return { balance, quota: 0, reject: false, underMaintenance: false, ledger: [] };
}

export function customerOf(model: Model, customerId: string): ModelCustomer | undefined {
  return model.customers.find((c) => c.id === customerId);
}

/** The account a charge is paid from, and its refunds go back to. */
export function accountOfCharge(model: Model, charge: ModelCharge): ModelAccount {
  return charge.account ?? customerOf(model, charge.customerId)!.account;
}

/** Every account of the customer (ConfigureBankAccount sets them all). */
export function accountsOf(customer: ModelCustomer): ModelAccount[] {
  return [customer.account, ...(customer.otherAccounts ?? []).map((other) => other.account)];
}

export function chargeOf(model: Model, chargeId: string): ModelCharge {
  const charge = model.charges.find((c) => c.id === chargeId);
  if (!charge) throw new Error(`model has no charge ${chargeId}`);
  return charge;
}

/** A charge the engine still owes an answer. */
export function hasPendingCharge(model: Model, customerId: string): boolean {
  return model.charges.some((c) => c.customerId === customerId && c.status === ChargeStatus.PENDING);
}

/** docs/guide/refunds.md: refundedAmount counts settled and pending refunds. */
export function refundedAmount(charge: ModelCharge): number {
  return charge.refundedSettled + charge.refundedPending;
}

export function refundableAmount(charge: ModelCharge): number {
  return charge.status === ChargeStatus.SUCCESS ? charge.amount - refundedAmount(charge) : 0;
}
