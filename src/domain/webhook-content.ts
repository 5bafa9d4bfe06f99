import { customerIdShown } from "./charge.js";
import { create, toJson } from "@bufbuild/protobuf";
import { ChargeStatus, ContractStatus } from "../../gen/payments/v1/enums_pb.js";
import {
  ChargeEventContentSchema,
  ContractEventContentSchema,
  ContractStopRequestedContentSchema,
  RefundFailedContentSchema,
  RefundSucceededContentSchema,
  type SubscriptionEventContent,
  SubscriptionEventContentSchema,
} from "../../gen/payments/v1/webhooks_pb.js";
import { errorTypeMessages } from "./payment-failure.js";
import { refundableRemainder, refundedIncludingPending } from "./refund.js";
import type { ChargeRecord, ContractRecord, RefundRecord } from "./records.js";
import type { StopRequestRecord } from "./stop-request.js";
import { carriedAmountOf, type SubscriptionPeriodRecord, type SubscriptionRecord } from "./subscription.js";

// Webhook bodies use the proto field names (snake_case), as docs/reference/contract.md#webhooks shows them.
const asWebhookJson = { useProtoFieldName: true, alwaysEmitImplicit: true } as const;

/** Content of charge events (CHARGE_SUCCESS, CHARGE_FAIL, charge.created, charge.fail). */
export function chargeEventContent(charge: ChargeRecord, merchantName: string): object {
  const failed = charge.status === ChargeStatus.FAILURE;
  const message = create(ChargeEventContentSchema, {
    id: charge.id,
    customer: customerIdShown(charge),
    description: charge.description,
    merchantName,
    initialAmount: charge.amount + charge.discount,
    discount: charge.discount,
    finalAmount: charge.amount,
    currency: "JPY",
    createdAt: charge.createdAt.toISOString(),
    updatedAt: charge.updatedAt.toISOString(),
    error: failed
      ? { code: charge.errorType, message: charge.errorMessage || errorTypeMessages[charge.errorType] }
      : undefined,
    metadata: charge.metadata,
    apiSource: charge.apiSource,
    onSessionChargeId: charge.onSessionId ?? "",
    status: `CHARGE_STATUS_${ChargeStatus[charge.status]}`,
    requestId: charge.requestId ?? "",
  });
  const json = toJson(ChargeEventContentSchema, message, asWebhookJson) as Record<string, unknown>;
  if (!failed) delete json.error;
  else (json.error as Record<string, unknown>).details ??= [];
  return json;
}

/** Content of EVENT_TYPE_CONTRACT_ACTIVATED. */
export function contractEventContent(contract: ContractRecord, merchantName: string): object {
  return toJson(
    ContractEventContentSchema,
    create(ContractEventContentSchema, {
      tokenId: contract.id,
      status: `CONTRACT_STATUS_${ContractStatus[contract.status]}`,
      merchantName,
      metadata: contract.metadata,
      createdAt: contract.createdAt.toISOString(),
      updatedAt: contract.updatedAt.toISOString(),
      customer: contract.customerId,
    }),
    asWebhookJson,
  ) as object;
}

/** Content of EVENT_TYPE_REFUND_FAILED: the {transaction, refund} body (docs/reference/contract.md#events). */
export function refundFailedContent(charge: ChargeRecord, refund: RefundRecord, merchantName: string): object {
  return toJson(
    RefundFailedContentSchema,
    create(RefundFailedContentSchema, {
      transaction: {
        id: charge.id,
        customer: customerIdShown(charge),
        // docs/reference/contract.md#events: 1 means success — the original charge is not affected by the refund failure.
        status: 1,
        description: charge.description,
        merchantName,
        initialAmount: charge.amount + charge.discount,
        discount: charge.discount,
        finalAmount: charge.amount,
        currency: "JPY",
        createdAt: charge.createdAt.toISOString(),
        updatedAt: charge.updatedAt.toISOString(),
      },
      refund: {
        refundId: refund.id,
        error: { code: "refund_failed", message: refund.errorMessage },
        amount: refund.amount,
      },
    }),
    asWebhookJson,
  ) as object;
}

/** Content of EVENT_TYPE_REFUND_SUCCEEDED (ours to define; docs/reference/events.md). */
export function refundSucceededContent(charge: ChargeRecord, refund: RefundRecord, settledAt: Date): object {
  return toJson(
    RefundSucceededContentSchema,
    create(RefundSucceededContentSchema, {
      refundId: refund.id,
      chargeId: charge.id,
      customer: customerIdShown(charge),
      amount: refund.amount,
      refundedAmount: refundedIncludingPending(charge),
      refundableAmount: refundableRemainder(charge),
      chargeStatus: `CHARGE_STATUS_${ChargeStatus[charge.status]}`,
      currency: "JPY",
      reason: refund.reason,
      metadata: refund.metadata,
      createdAt: refund.createdAt.toISOString(),
      settledAt: settledAt.toISOString(),
      cancellation: refund.cancellation,
    }),
    asWebhookJson,
  ) as object;
}

/** Content of EVENT_TYPE_CONTRACT_STOP_REQUESTED (docs/reference/events.md#contract-stop-requested). */
export function stopRequestedContent(
  request: StopRequestRecord,
  contract: ContractRecord,
  merchantName: string,
): object {
  return toJson(
    ContractStopRequestedContentSchema,
    create(ContractStopRequestedContentSchema, {
      stopRequestId: request.id,
      tokenId: contract.id,
      customer: contract.customerId,
      contractStatus: `CONTRACT_STATUS_${ContractStatus[contract.status]}`,
      merchantName,
      reason: request.reason,
      requestedAt: request.requestedAt.toISOString(),
    }),
    asWebhookJson,
  ) as object;
}

/**
 * Content of the subscription events (docs/reference/events.md#subscription-events): the
 * subscription, and the period when the event is about one (EVENT_TYPE_SUBSCRIPTION_PAYMENT_SCHEDULED).
 */
export function subscriptionEventContent(
  subscription: SubscriptionRecord,
  merchantName: string,
  now: Date,
  period?: SubscriptionPeriodRecord,
  dunning?: { attempt: number; retryDebitDate?: string; retryChargeId?: string; carriedAmount?: number },
): object {
  // Every field given, so the message is written out as a literal rather than through `create`:
  // a debit date records one of these per subscription (docs/operations/benchmark.md#debit-day).
  const content: SubscriptionEventContent = {
    $typeName: SubscriptionEventContentSchema.typeName,
    subscriptionId: subscription.id,
    customer: subscription.customerId,
    planId: subscription.planId,
    status: `SUBSCRIPTION_STATUS_${subscription.status.toUpperCase()}`,
    endReason: subscription.endReason ? `SUBSCRIPTION_END_REASON_${subscription.endReason.toUpperCase()}` : "",
    merchantName,
    metadata: subscription.metadata,
    period: period?.period ?? "",
    debitDate: period?.debitDate ?? "",
    chargeId: period?.chargeId ?? "",
    initialAmount: period?.amounts.initialAmount ?? 0,
    discount: period?.amounts.discount ?? 0,
    finalAmount: period?.amounts.finalAmount ?? 0,
    currency: "JPY",
    nextPeriod: subscription.nextPeriod ?? "",
    nextDebitDate: subscription.nextDebitDate ?? "",
    createdAt: now.toISOString(),
    pastDueReason: subscription.pastDueReason ? `PAST_DUE_REASON_${subscription.pastDueReason.toUpperCase()}` : "",
    attempt: dunning?.attempt ?? 0,
    retryDebitDate: dunning?.retryDebitDate ?? "",
    retryChargeId: dunning?.retryChargeId ?? "",
    // 合算: what this period's charge carried in, or (PAST_DUE) what the next period's will.
    carriedAmount: dunning ? (dunning.carriedAmount ?? 0) : carriedAmountOf(period?.carried ?? []),
  };
  return toJson(SubscriptionEventContentSchema, content, asWebhookJson) as object;
}
