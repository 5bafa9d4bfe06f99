import type { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { limits } from "../domain/limits.js";
import type { SubscriptionPeriodRecord, SubscriptionRecord } from "../domain/subscription.js";
import { chargeStatusesOf, customersOfEmail, merchantContacts } from "../storage/customer-records.js";
import { listSubscriptions, periodsOf } from "../storage/subscriptions.js";
import { billingViewsOf } from "./billing-screens.js";
import type { CustomerPrincipal } from "./customer-app-sign-in.js";
import type { FlowContext } from "./flow-context.js";

/** A subscription as the customer app shows it (docs/guide/customer-app.md#subscriptions). */
export interface CustomerSubscriptionView {
  subscription: SubscriptionRecord;
  merchantName: string;
  planName: string;
  nextDebitAmount: number;
  stopRequested: boolean;
  periods: { period: SubscriptionPeriodRecord; outcome: ChargeStatus | undefined }[];
}

/**
 * The signed-in e-mail's subscriptions with every merchant, newest first: each customer record of
 * the e-mail is one merchant's, so the reads stay scoped to the e-mail's own records.
 */
export async function customerSubscriptions(
  ctx: FlowContext,
  who: CustomerPrincipal,
): Promise<CustomerSubscriptionView[]> {
  const db = ctx.tx.db;
  const max = limits.customerSubscriptionsMax;
  const views = [];
  for (const customer of await customersOfEmail(db, who.email)) {
    const found = await listSubscriptions(db, customer.merchantId, { customerId: customer.id, planId: "" }, max);
    views.push(...(await billingViewsOf(ctx, customer.merchantId, found)));
  }
  views.sort((a, b) => b.subscription.createdAt.getTime() - a.subscription.createdAt.getTime());
  const shown = views.slice(0, max);
  const merchants = await merchantContacts(db, [...new Set(shown.map((v) => v.subscription.merchantId))]);
  const periods = await Promise.all(
    shown.map((v) => periodsOf(db, v.subscription.id, limits.customerSubscriptionPeriodsShown)),
  );
  const outcomes = await chargeStatusesOf(
    db,
    periods.flat().flatMap((p) => (p.chargeId ? [p.chargeId] : [])),
  );
  return shown.map((view, i) => ({
    subscription: view.subscription,
    merchantName: merchants.get(view.subscription.merchantId)?.name ?? "",
    planName: view.planName,
    nextDebitAmount: view.nextDebitAmount,
    stopRequested: view.stopRequest !== undefined,
    periods: periods[i].map((period) => ({
      period,
      outcome: period.chargeId ? outcomes.get(period.chargeId) : undefined,
    })),
  }));
}
