import type { ServiceImpl } from "@connectrpc/connect";
import type { SubscriptionService } from "../../gen/payments/v1/subscription_service_pb.js";
import { stopRequestOf } from "../flows/billing-screens.js";
import type { FlowContext } from "../flows/flow-context.js";
import { createPlan, getPlan, listMerchantPlans, updatePlanPrice } from "../flows/plans.js";
import {
  cancel,
  createSubscription,
  getSubscription,
  listMerchantSubscriptions,
  pause,
  resume,
} from "../flows/subscriptions.js";
import { encodeStopRequest } from "./encode.js";
import { idempotencyScopeKey, merchantOf } from "./request-context.js";
import { decodePlanInput, encodePlan, encodeSubscription } from "./subscription-encode.js";

/** SubscriptionService (docs/guide/recurring-billing.md): decode, call a flow, encode. */
export function createSubscriptionService(ctx: FlowContext): ServiceImpl<typeof SubscriptionService> {
  return {
    async createPlan(req, context) {
      const plan = await createPlan(
        ctx,
        merchantOf(context),
        decodePlanInput(req),
        context.values.get(idempotencyScopeKey),
      );
      return { plan: encodePlan(plan) };
    },
    async getPlan(req, context) {
      return { plan: encodePlan(await getPlan(ctx, merchantOf(context), req.planId)) };
    },
    async listPlans(req, context) {
      const page = await listMerchantPlans(ctx, merchantOf(context), req);
      return { plans: page.plans.map(encodePlan), nextPageToken: page.nextPageToken };
    },
    async updatePlanPrice(req, context) {
      const plan = await updatePlanPrice(
        ctx,
        merchantOf(context),
        { planId: req.planId, amount: req.amount, fromPeriod: req.fromPeriod },
        context.values.get(idempotencyScopeKey),
      );
      return { plan: encodePlan(plan) };
    },
    async createSubscription(req, context) {
      const subscription = await createSubscription(
        ctx,
        merchantOf(context),
        {
          customerId: req.customerId,
          planId: req.planId,
          amount: req.amount,
          startPeriod: req.startPeriod,
          endPeriod: req.endPeriod,
          description: req.description,
          metadata: req.metadata,
        },
        context.values.get(idempotencyScopeKey),
      );
      return { subscription: encodeSubscription(subscription) };
    },
    async getSubscription(req, context) {
      const { subscription, periods, attempts } = await getSubscription(ctx, merchantOf(context), req.subscriptionId);
      const stopRequest = await stopRequestOf(ctx, subscription);
      return {
        subscription: encodeSubscription(subscription, periods, attempts),
        stopRequest: stopRequest && encodeStopRequest(stopRequest),
      };
    },
    async listSubscriptions(req, context) {
      const page = await listMerchantSubscriptions(ctx, merchantOf(context), req);
      return { subscriptions: page.subscriptions.map((s) => encodeSubscription(s)), nextPageToken: page.nextPageToken };
    },
    async pauseSubscription(req, context) {
      return { subscription: encodeSubscription(await pause(ctx, merchantOf(context), req.subscriptionId)) };
    },
    async resumeSubscription(req, context) {
      return { subscription: encodeSubscription(await resume(ctx, merchantOf(context), req.subscriptionId)) };
    },
    async cancelSubscription(req, context) {
      const cancelled = await cancel(ctx, merchantOf(context), req.subscriptionId, req.atPeriodEnd);
      return { subscription: encodeSubscription(cancelled) };
    },
  };
}
