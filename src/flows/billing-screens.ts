import { debitCalendarOf, type DebitCalendarDay, expectedNextDebit } from "../domain/expected-debit.js";
import { addDays, jstDateOf } from "../domain/jst.js";
import type { PlanRecord } from "../domain/plan.js";
import type { StopRequestRecord } from "../domain/stop-request.js";
import { carriedAmountOf, type SubscriptionPeriodRecord, type SubscriptionRecord } from "../domain/subscription.js";
import { debitCalendarGroups } from "../storage/debit-calendar.js";
import { plansByIds } from "../storage/plans.js";
import { stopRequestsOfContracts } from "../storage/stop-requests.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { listMerchantSubscriptions } from "./subscriptions.js";

/** A subscription as the dashboard's screens show it (docs/guide/dashboard.md#recurring-billing). */
export interface BillingSubscriptionView {
  subscription: SubscriptionRecord;
  periods: readonly SubscriptionPeriodRecord[];
  planName: string;
  /** The next debit's final amount in yen; 0 when none is scheduled. */
  nextDebitAmount: number;
  /** The customer's stop request on the subscription's contract (customer app), if any. */
  stopRequest: StopRequestRecord | undefined;
}

/** The subscriptions with their plan's name, next debit amount and stop request: three reads for a page. */
export async function billingViewsOf(
  ctx: FlowContext,
  merchantId: string,
  subscriptions: readonly SubscriptionRecord[],
  periods: readonly SubscriptionPeriodRecord[] = [],
): Promise<BillingSubscriptionView[]> {
  const [plans, stopRequests] = await Promise.all([
    plansByIds(
      ctx.tx.db,
      merchantId,
      subscriptions.map((s) => s.planId),
    ),
    stopRequestsOfContracts(
      ctx.tx.db,
      subscriptions.map((s) => s.contractId),
    ),
  ]);
  return subscriptions.map((subscription) =>
    viewOf(subscription, plans.get(subscription.planId), periods, stopRequests),
  );
}

function viewOf(
  subscription: SubscriptionRecord,
  plan: PlanRecord | undefined,
  periods: readonly SubscriptionPeriodRecord[],
  stopRequests: ReadonlyMap<string, StopRequestRecord>,
): BillingSubscriptionView {
  const expected = plan && expectedNextDebit(subscription, plan);
  return {
    subscription,
    periods,
    planName: plan?.name ?? "",
    // 合算: a carried amount is debited with the next period.
    nextDebitAmount: expected ? expected.finalAmount + carriedAmountOf(subscription.carry) : 0,
    stopRequest: stopRequests.get(subscription.contractId),
  };
}

/** The calendar of the next debit dates, from today (JST) for `days` days (0: 31). */
export async function debitCalendar(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  days: number,
): Promise<DebitCalendarDay[]> {
  const today = jstDateOf(ctx.clock.now());
  const groups = await debitCalendarGroups(ctx.tx.db, merchant.id, today, addDays(today, days || 31));
  const plans = await plansByIds(
    ctx.tx.db,
    merchant.id,
    groups.map((g) => g.planId),
  );
  return debitCalendarOf(groups, plans);
}

/** The re-debit queue: the merchant's subscriptions past_due, newest first. */
export async function redebitQueue(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  page: { pageSize: number; pageToken: string },
): Promise<{ subscriptions: BillingSubscriptionView[]; nextPageToken: string }> {
  const found = await listMerchantSubscriptions(ctx, merchant, {
    customerId: "",
    planId: "",
    status: "past_due",
    ...page,
  });
  return {
    subscriptions: await billingViewsOf(ctx, merchant.id, found.subscriptions),
    nextPageToken: found.nextPageToken,
  };
}

/** The customer's stop request on the subscription's contract, if any (GetSubscription shows it). */
export async function stopRequestOf(
  ctx: FlowContext,
  subscription: SubscriptionRecord,
): Promise<StopRequestRecord | undefined> {
  return (await stopRequestsOfContracts(ctx.tx.db, [subscription.contractId])).get(subscription.contractId);
}
