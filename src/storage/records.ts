import type { Insertable, Selectable } from "kysely";
import type { AsyncRequestRecord } from "../domain/async-request.js";
import type { IdempotencyRecord } from "../domain/idempotency.js";
import type { OneTimeCodeRecord } from "../domain/one-time-code.js";
import type { LinkState, PaymentLinkRecord } from "../domain/payment-link.js";
import type {
  ChargeRecord,
  ContractRecord,
  CustomerRecord,
  DeliveryAttemptRecord,
  EventRecord,
  RefundRecord,
} from "../domain/records.js";
import type {
  AsyncRequestTable,
  ChargeTable,
  ContractTable,
  CustomerTable,
  DeliveryAttemptTable,
  EventTable,
  IdempotencyKeyTable,
  OneTimeCodeTable,
  PaymentLinkTable,
  RefundTable,
} from "./schema.js";

/** Row ↔ record mapping, in one place. */
export function customerFromRow(row: CustomerTable): CustomerRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    name: row.name,
    katakanaLastName: row.katakana_last_name,
    katakanaFirstName: row.katakana_first_name,
    address: row.address,
    birthDate: row.birth_date,
    gender: row.gender,
    metadata: JSON.parse(row.metadata_json),
    kycStatus: row.kyc_status,
    kycRejectionReason: row.kyc_rejection_reason,
    paymentStatus: row.payment_status,
    linkInitialized: row.link_initialized === 1,
    activated: row.activated === 1,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export function customerToRow(record: CustomerRecord): Omit<CustomerTable, "email_normalized" | "deleted_at"> {
  return {
    id: record.id,
    merchant_id: record.merchantId,
    email: record.email,
    name: record.name,
    katakana_last_name: record.katakanaLastName,
    katakana_first_name: record.katakanaFirstName,
    address: record.address,
    birth_date: record.birthDate,
    gender: record.gender,
    metadata_json: JSON.stringify(record.metadata),
    kyc_status: record.kycStatus,
    kyc_rejection_reason: record.kycRejectionReason,
    payment_status: record.paymentStatus,
    link_initialized: record.linkInitialized ? 1 : 0,
    activated: record.activated ? 1 : 0,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}

export function contractFromRow(row: ContractTable): ContractRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    customerId: row.customer_id,
    status: row.status,
    metadata: JSON.parse(row.metadata_json),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    bankAccountId: row.bank_account_id,
  };
}

export function contractToRow(record: ContractRecord): ContractTable {
  return {
    id: record.id,
    merchant_id: record.merchantId,
    customer_id: record.customerId,
    status: record.status,
    metadata_json: JSON.stringify(record.metadata),
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
    bank_account_id: record.bankAccountId,
  };
}

export function chargeFromRow(row: ChargeTable): ChargeRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    customerId: row.customer_id,
    contractId: row.contract_id,
    onSessionId: row.on_session_id,
    requestId: row.request_id,
    apiSource: row.api_source,
    status: row.status,
    amount: row.amount,
    description: row.description,
    metadata: JSON.parse(row.metadata_json),
    errorType: row.error_type,
    errorMessage: row.error_message,
    refundedAmount: row.refunded_amount,
    pendingRefundAmount: row.pending_refund_amount,
    succeededAt: row.succeeded_at ? new Date(row.succeeded_at) : null,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    bankAccountId: row.bank_account_id,
    discount: row.discount,
  };
}

export function chargeToRow(record: ChargeRecord): ChargeTable {
  return {
    id: record.id,
    merchant_id: record.merchantId,
    customer_id: record.customerId,
    contract_id: record.contractId,
    on_session_id: record.onSessionId,
    request_id: record.requestId,
    api_source: record.apiSource,
    status: record.status,
    amount: record.amount,
    description: record.description,
    metadata_json: JSON.stringify(record.metadata),
    error_type: record.errorType,
    error_message: record.errorMessage,
    refunded_amount: record.refundedAmount,
    pending_refund_amount: record.pendingRefundAmount,
    succeeded_at: record.succeededAt?.toISOString() ?? null,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
    bank_account_id: record.bankAccountId,
    discount: record.discount,
  };
}

export function refundFromRow(row: Selectable<RefundTable>): RefundRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    chargeId: row.charge_id,
    amount: row.amount,
    status: row.status,
    cancellation: row.cancellation === 1,
    reason: row.reason,
    metadata: JSON.parse(row.metadata_json),
    errorMessage: row.error_message,
    settleAfter: new Date(row.settle_after),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export function refundToRow(record: RefundRecord): Insertable<RefundTable> {
  return {
    id: record.id,
    merchant_id: record.merchantId,
    charge_id: record.chargeId,
    amount: record.amount,
    status: record.status,
    cancellation: record.cancellation ? 1 : 0,
    reason: record.reason,
    metadata_json: JSON.stringify(record.metadata),
    error_message: record.errorMessage,
    settle_after: record.settleAfter.toISOString(),
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}

/** The link of a row; `token` is the one the caller presented, when it was looked up by it. */
export function paymentLinkFromRow(row: PaymentLinkTable, token = ""): PaymentLinkRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    token,
    workflow: row.workflow,
    customerId: row.customer_id ?? "",
    contractId: row.contract_id,
    chargeId: row.charge_id,
    price: row.price,
    description: row.description,
    metadata: JSON.parse(row.metadata_json),
    email: row.email,
    forceKyc: row.force_kyc === 1,
    successUrl: row.success_url,
    failureUrl: row.failure_url,
    state: row.state as LinkState,
    twoFactorVerified: row.two_factor_verified === 1,
    bankLinked: row.bank_linked === 1,
    kycSubmitted: row.kyc_submitted === 1,
    expiresAt: new Date(row.expires_at),
    completedAt: row.completed_at ? new Date(row.completed_at) : null,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export function asyncRequestFromRow(row: AsyncRequestTable): AsyncRequestRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    chargeId: row.charge_id,
    status: row.status,
    attempts: row.attempts,
    forceKyc: row.force_kyc === 1,
    errorType: row.error_type,
    errorMessage: row.error_message,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export function idempotencyKeyFromRow(row: IdempotencyKeyTable): IdempotencyRecord {
  return {
    merchantId: row.merchant_id,
    key: row.idempotency_key,
    method: row.method,
    requestHash: row.request_hash,
    state: row.state === "completed" ? "completed" : "in_flight",
    responseJson: row.response_json,
    httpStatus: row.http_status,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    leaseUntil: row.lease_until ? new Date(row.lease_until) : null,
    resourceId: row.resource_id,
  };
}

export function oneTimeCodeFromRow(row: OneTimeCodeTable): OneTimeCodeRecord {
  return {
    id: row.id,
    codeHash: row.code_hash,
    attempts: row.attempts,
    expiresAt: new Date(row.expires_at),
    usedAt: row.used_at ? new Date(row.used_at) : null,
    createdAt: new Date(row.created_at),
  };
}

export function eventFromRow(row: Selectable<EventTable>): EventRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    eventType: row.event_type,
    eventTypeName: row.event_type_name,
    chargeId: row.charge_id,
    contentJson: row.content_json,
    createdAt: new Date(row.created_at),
    seq: row.seq,
    deliveryStatus: row.delivery_status,
    nextAttemptAt: new Date(row.next_attempt_at),
    deliveredAt: row.delivered_at ? new Date(row.delivered_at) : null,
  };
}

export function attemptFromRow(row: Selectable<DeliveryAttemptTable>): DeliveryAttemptRecord {
  return {
    eventId: row.event_id,
    attemptedAt: new Date(row.attempted_at),
    httpStatus: row.http_status,
    error: row.error,
    durationMs: row.duration_ms,
  };
}

export function idempotencyKeyToRow(record: IdempotencyRecord): IdempotencyKeyTable {
  return {
    merchant_id: record.merchantId,
    idempotency_key: record.key,
    method: record.method,
    request_hash: record.requestHash,
    state: record.state,
    response_json: record.responseJson,
    http_status: record.httpStatus,
    created_at: record.createdAt.toISOString(),
    expires_at: record.expiresAt.toISOString(),
    lease_until: record.leaseUntil?.toISOString() ?? null,
    resource_id: record.resourceId,
  };
}
