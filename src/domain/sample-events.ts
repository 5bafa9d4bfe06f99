import {
  ApiSource,
  ChargeStatus,
  ContractStatus,
  ErrorType,
  EventType,
  RefundStatus,
} from "../../gen/payments/v1/enums_pb.js";
import { newId } from "./ids.js";
import type { ChargeRecord, ContractRecord, RefundRecord } from "./records.js";
import type { SubscriptionPeriodRecord, SubscriptionRecord } from "./subscription.js";
import {
  chargeEventContent,
  contractEventContent,
  refundFailedContent,
  refundSucceededContent,
  stopRequestedContent,
  subscriptionEventContent,
} from "./webhook-content.js";

/**
 * The content of a test event of any type (SandboxService.SendTestEvent): the same shape a real
 * event of that type has, about made-up records with fresh ids and `metadata.test = "true"`, so a
 * merchant can exercise each branch of a webhook handler.
 */
export function sampleEventContent(type: EventType, merchantId: string, merchantName: string, now: Date): object {
  const customerId = newId("cus");
  const charge: ChargeRecord = {
    id: newId("trx"),
    merchantId,
    customerId,
    contractId: newId("con"),
    onSessionId: null,
    requestId: newId("pwf"),
    apiSource: ApiSource.OFF_SESSION_ASYNC,
    status: ChargeStatus.SUCCESS,
    amount: 1200,
    description: "test event",
    metadata: { test: "true" },
    errorType: ErrorType.UNSPECIFIED,
    errorMessage: "",
    refundedAmount: 0,
    pendingRefundAmount: 0,
    succeededAt: now,
    createdAt: now,
    updatedAt: now,
    bankAccountId: null,
    discount: 0,
  };
  const failed: ChargeRecord = {
    ...charge,
    status: ChargeStatus.FAILURE,
    succeededAt: null,
    errorType: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS,
  };
  const refund: RefundRecord = {
    id: newId("rfd"),
    merchantId,
    chargeId: charge.id,
    amount: charge.amount,
    status: RefundStatus.SUCCEEDED,
    cancellation: false,
    reason: "test event",
    metadata: { test: "true" },
    errorMessage: "",
    settleAfter: now,
    createdAt: now,
    updatedAt: now,
  };
  const contract: ContractRecord = {
    id: charge.contractId!,
    merchantId,
    customerId,
    status: ContractStatus.ACTIVATED,
    metadata: { test: "true" },
    createdAt: now,
    updatedAt: now,
    bankAccountId: null,
  };
  const subscription: SubscriptionRecord = {
    id: newId("sub"),
    merchantId,
    customerId,
    contractId: contract.id,
    planId: newId("pln"),
    amount: null,
    startPeriod: "2026-12",
    endPeriod: null,
    status: "active",
    cancelAtPeriodEnd: false,
    endReason: null,
    pastDueReason: null,
    pastDuePeriod: null,
    nextPeriod: "2027-01",
    nextDebitDate: "2027-01-27",
    lastPeriod: "2026-12",
    description: "test event",
    metadata: { test: "true" },
    createdAt: now,
    updatedAt: now,
    endedAt: null,
    carry: [],
  };
  const period: SubscriptionPeriodRecord = {
    subscriptionId: subscription.id,
    merchantId,
    period: "2026-12",
    number: 1,
    debitDate: "2026-12-28",
    priceVersion: 1,
    amounts: { initialAmount: charge.amount, discount: 0, finalAmount: charge.amount },
    chargeId: charge.id,
    carried: [],
    createdAt: now,
  };
  switch (type) {
    case EventType.SUBSCRIPTION_CREATED:
      return subscriptionEventContent(subscription, merchantName, now);
    case EventType.SUBSCRIPTION_PAYMENT_SCHEDULED:
      return subscriptionEventContent(subscription, merchantName, now, period);
    case EventType.SUBSCRIPTION_PAST_DUE:
      return subscriptionEventContent(
        { ...subscription, status: "past_due", pastDueReason: "not_retried", pastDuePeriod: period.period },
        merchantName,
        now,
        period,
      );
    case EventType.SUBSCRIPTION_CANCELLED:
      return subscriptionEventContent(
        {
          ...subscription,
          status: "cancelled",
          endReason: "cancelled",
          nextPeriod: null,
          nextDebitDate: null,
          endedAt: now,
        },
        merchantName,
        now,
      );
    case EventType.CHARGE_FAIL:
    case EventType.TEST_CHARGE_FAIL:
      return chargeEventContent(failed, merchantName);
    case EventType.TEST_CHARGE_CREATED:
      return chargeEventContent({ ...charge, status: ChargeStatus.PENDING, succeededAt: null }, merchantName);
    case EventType.REFUND_SUCCEEDED:
      return refundSucceededContent(
        { ...charge, status: ChargeStatus.REFUNDED, refundedAmount: charge.amount },
        refund,
        now,
      );
    case EventType.REFUND_FAILED:
      return refundFailedContent(
        charge,
        { ...refund, status: RefundStatus.FAILED, errorMessage: "the bank refused the transfer back (test event)" },
        merchantName,
      );
    case EventType.CONTRACT_ACTIVATED:
      return contractEventContent(contract, merchantName);
    case EventType.CONTRACT_STOP_REQUESTED:
      return stopRequestedContent(
        { id: newId("stp"), merchantId, customerId, contractId: contract.id, reason: "test event", requestedAt: now },
        contract,
        merchantName,
      );
    default:
      return chargeEventContent(charge, merchantName);
  }
}
