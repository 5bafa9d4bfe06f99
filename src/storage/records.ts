import type { ChargeRecord, ContractRecord, CustomerRecord, RefundRecord } from "../domain/records.js";
import type { ChargeTable, ContractTable, CustomerTable, RefundTable } from "./schema.js";

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
  };
}

export function refundFromRow(row: RefundTable): RefundRecord {
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

export function refundToRow(record: RefundRecord): RefundTable {
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
