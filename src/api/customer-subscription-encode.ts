import { create } from "@bufbuild/protobuf";
import {
  type CustomerSubscription,
  CustomerSubscriptionSchema,
} from "../../gen/payments/v1/customer_app_service_pb.js";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { debitAmountOf } from "../domain/subscription.js";
import type { CustomerSubscriptionView } from "../flows/customer-subscriptions.js";
import { encodeSubscription } from "./subscription-encode.js";

/** A subscription as ListCustomerSubscriptions answers it: the merchant's view, cut to what the customer needs. */
export function encodeCustomerSubscription(view: CustomerSubscriptionView): CustomerSubscription {
  const subscription = encodeSubscription(view.subscription);
  return create(CustomerSubscriptionSchema, {
    subscriptionId: subscription.subscriptionId,
    merchantId: view.subscription.merchantId,
    merchantName: view.merchantName,
    planName: view.planName,
    contractId: subscription.contractId,
    status: subscription.status,
    nextDebitDate: view.nextDebitAmount > 0 ? subscription.nextDebitDate : "",
    nextDebitAmount: view.nextDebitAmount,
    stopRequested: view.stopRequested,
    periods: view.periods.map(({ period, outcome }) => ({
      period: period.period,
      debitDate: period.debitDate,
      // What was debited: its own amount and any carried into it (合算).
      amount: debitAmountOf(period),
      outcome: outcome ?? ChargeStatus.UNSPECIFIED,
    })),
  });
}
