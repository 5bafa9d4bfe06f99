import type {
  ApiSource,
  ChargeStatus,
  ContractStatus,
  ErrorType,
  KycStatus,
  PaymentAuthorizationStatus,
  RefundStatus,
  DeliveryStatus,
  EventType,
} from "../../gen/payments/v1/enums_pb.js";
import type { CustomerProfile } from "./customer.js";

/** Plain records the flows and the domain work with; storage maps rows to these. */
export type Metadata = Record<string, string>;

export interface CustomerRecord extends CustomerProfile {
  id: string;
  merchantId: string;
  email: string;
  metadata: Metadata;
  kycStatus: KycStatus;
  kycRejectionReason: string;
  paymentStatus: PaymentAuthorizationStatus;
  linkInitialized: boolean;
  activated: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface ContractRecord {
  id: string;
  merchantId: string;
  customerId: string;
  status: ContractStatus;
  metadata: Metadata;
  createdAt: Date;
  updatedAt: Date;
  /** The bank account the contract was approved with (set when its approval is claimed): its off-session charges debit it. */
  bankAccountId: string | null;
}

export interface ChargeRecord {
  id: string;
  merchantId: string;
  customerId: string | null;
  contractId: string | null;
  onSessionId: string | null;
  requestId: string | null;
  apiSource: ApiSource;
  status: ChargeStatus;
  amount: number;
  description: string;
  metadata: Metadata;
  errorType: ErrorType;
  errorMessage: string;
  refundedAmount: number;
  pendingRefundAmount: number;
  succeededAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /**
   * The bank account the charge is paid from (and its refunds go back to): its contract's, or the
   * one approved on its link; set when the charge starts (off-session) or its approval is claimed.
   */
  bankAccountId: string | null;
  /** Yen off the initial amount (a subscription period's discount; 0 otherwise): initial = amount + discount. */
  discount: number;
}

export interface RefundRecord {
  id: string;
  merchantId: string;
  chargeId: string;
  amount: number;
  status: RefundStatus;
  cancellation: boolean;
  reason: string;
  metadata: Metadata;
  errorMessage: string;
  settleAfter: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** A webhook event of the outbox and where its delivery stands. */
export interface EventRecord {
  id: string;
  merchantId: string;
  eventType: EventType;
  /** The event_type as it travels (EVENT_TYPE_* or charge.created / charge.fail). */
  eventTypeName: string;
  /** trx-* the event is about, "" when none. */
  chargeId: string;
  /** The content exactly as signed and sent. */
  contentJson: string;
  createdAt: Date;
  /** Recording order (ties of createdAt: charge.created before charge.fail). */
  seq: number;
  deliveryStatus: DeliveryStatus;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
}

/** An event due for delivery, as the dispatcher claims it. */
export interface DueEventRecord extends Pick<EventRecord, "id" | "eventTypeName" | "contentJson" | "createdAt"> {
  /** Attempts already made in this retry cycle. */
  attemptCount: number;
  /** When this retry cycle's first attempt was made (null before it). */
  retryWindowStartedAt: Date | null;
}

/** One attempt to deliver an event: the HTTP status answered, or the network error. */
export interface DeliveryAttemptRecord {
  eventId: string;
  attemptedAt: Date;
  /** 0 when no HTTP answer came (see error). */
  httpStatus: number;
  error: string;
  durationMs: number;
}
