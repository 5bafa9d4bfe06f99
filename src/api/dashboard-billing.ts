import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  type BillingSubscription,
  BillingSubscriptionSchema,
  type DashboardService,
} from "../../gen/payments/v1/dashboard_service_pb.js";
import { billingViewsOf, type BillingSubscriptionView, debitCalendar, redebitQueue } from "../flows/billing-screens.js";
import type { FlowContext } from "../flows/flow-context.js";
import { listMerchantPlans } from "../flows/plans.js";
import { getSubscription, listMerchantSubscriptions } from "../flows/subscriptions.js";
import { dashboardMerchantOf } from "./dashboard-session.js";
import { auditedContext } from "./dashboard-team.js";
import { encodeStopRequest } from "./encode.js";
import { encodePlan, encodeSubscription } from "./subscription-encode.js";
import { createSubscriptionService } from "./subscription-service.js";

type BillingMethods =
  | "listBillingPlans"
  | "createBillingPlan"
  | "updateBillingPlanPrice"
  | "listBillingSubscriptions"
  | "getBillingSubscription"
  | "createBillingSubscription"
  | "pauseBillingSubscription"
  | "resumeBillingSubscription"
  | "cancelBillingSubscription"
  | "getDebitCalendar"
  | "listRedebitQueue";

/**
 * Recurring billing in the dashboard (docs/guide/dashboard.md#recurring-billing): the changes go
 * through SubscriptionService's own handlers (the dashboard session's merchant stands in for the
 * API key's, the idempotency interceptor finds the wrapped key), the screens' reads are added here.
 */
export function createBillingHandlers(ctx: FlowContext): Pick<ServiceImpl<typeof DashboardService>, BillingMethods> {
  const merchantOf = dashboardMerchantOf;
  const api = (context: HandlerContext) => createSubscriptionService(auditedContext(ctx, context));
  const byId = async (context: HandlerContext, id: string) => {
    const { subscription, periods } = await getSubscription(ctx, merchantOf(context), id);
    return encodeView((await billingViewsOf(ctx, merchantOf(context).id, [subscription], periods))[0]);
  };
  return {
    async listBillingPlans(req, context) {
      const page = await listMerchantPlans(ctx, merchantOf(context), {
        pageSize: req.query?.pageSize ?? 0,
        pageToken: req.query?.pageToken ?? "",
      });
      return { result: { plans: page.plans.map(encodePlan), nextPageToken: page.nextPageToken } };
    },
    async createBillingPlan(req, context) {
      return { plan: (await api(context).createPlan(req.plan!, context)).plan };
    },
    async updateBillingPlanPrice(req, context) {
      return { plan: (await api(context).updatePlanPrice(req.price!, context)).plan };
    },
    async listBillingSubscriptions(req, context) {
      const merchant = merchantOf(context);
      const page = await listMerchantSubscriptions(ctx, merchant, {
        customerId: req.query?.customerId ?? "",
        planId: req.query?.planId ?? "",
        pageSize: req.query?.pageSize ?? 0,
        pageToken: req.query?.pageToken ?? "",
      });
      const views = await billingViewsOf(ctx, merchant.id, page.subscriptions);
      return { subscriptions: views.map(encodeView), nextPageToken: page.nextPageToken };
    },
    async getBillingSubscription(req, context) {
      return { subscription: await byId(context, req.query!.subscriptionId) };
    },
    async createBillingSubscription(req, context) {
      const created = await api(context).createSubscription(req.subscription!, context);
      return { subscription: await byId(context, created.subscription?.subscriptionId ?? "") };
    },
    async pauseBillingSubscription(req, context) {
      await api(context).pauseSubscription(req.change!, context);
      return { subscription: await byId(context, req.change!.subscriptionId) };
    },
    async resumeBillingSubscription(req, context) {
      await api(context).resumeSubscription(req.change!, context);
      return { subscription: await byId(context, req.change!.subscriptionId) };
    },
    async cancelBillingSubscription(req, context) {
      await api(context).cancelSubscription(req.change!, context);
      return { subscription: await byId(context, req.change!.subscriptionId) };
    },
    async getDebitCalendar(req, context) {
      const days = await debitCalendar(ctx, merchantOf(context), req.days);
      return {
        days: days.map((day) => ({
          debitDate: day.debitDate,
          subscriptions: day.subscriptions,
          amount: BigInt(day.amount),
          carriedAmount: BigInt(day.carriedAmount),
        })),
      };
    },
    async listRedebitQueue(req, context) {
      const page = await redebitQueue(ctx, merchantOf(context), req);
      return { subscriptions: page.subscriptions.map(encodeView), nextPageToken: page.nextPageToken };
    },
  };
}

function encodeView(view: BillingSubscriptionView): BillingSubscription {
  return create(BillingSubscriptionSchema, {
    subscription: encodeSubscription(view.subscription, view.periods),
    planName: view.planName,
    nextDebitAmount: view.nextDebitAmount,
    stopRequest: view.stopRequest && encodeStopRequest(view.stopRequest),
  });
}
