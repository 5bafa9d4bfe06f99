import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { ApiKeySchema, type ApiKey, type DashboardService } from "../../gen/payments/v1/dashboard_service_pb.js";
import { ListEventsRequestSchema, RedeliverEventRequestSchema } from "../../gen/payments/v1/payment_service_pb.js";
import {
  createApiKey,
  getWebhookSettings,
  listApiKeys,
  revokeOneApiKey,
  updateWebhookSettings,
  type ApiKeyView,
} from "../flows/dashboard.js";
import { searchEvents } from "../flows/events.js";
import type { FlowContext } from "../flows/flow-context.js";
import { getSupportContact, setSupportContact } from "../flows/merchants.js";
import { dashboardMerchantOf, dashboardPrincipalOf, steppedUpMerchant } from "./dashboard-session.js";
import { auditedContext } from "./dashboard-team.js";
import { encodeEvent } from "./encode.js";
import { createEventHandlers, eventQueryOf } from "./payment-events.js";

type SettingsMethods =
  | "listWebhookEvents"
  | "redeliverWebhookEvent"
  | "listApiKeys"
  | "createApiKey"
  | "revokeApiKey"
  | "getSupportContact"
  | "updateSupportContact"
  | "getWebhookSettings"
  | "updateWebhookSettings";

/** Webhook events and settings, API keys, the support contact; spread into DashboardService. */
export function createSettingsHandlers(ctx: FlowContext): Pick<ServiceImpl<typeof DashboardService>, SettingsMethods> {
  const merchantOf = dashboardMerchantOf;
  const audited = (context: HandlerContext) => auditedContext(ctx, context);
  return {
    async listWebhookEvents(req, context) {
      const page = await searchEvents(ctx, merchantOf(context), {
        ...eventQueryOf(req.filter ?? create(ListEventsRequestSchema)),
        deliveryStatus: req.deliveryStatus,
      });
      return {
        events: page.events.map(({ event, attempts }) => encodeEvent(event, attempts)),
        nextPageToken: page.nextPageToken,
      };
    },
    async redeliverWebhookEvent(req, context) {
      return {
        event: (
          await createEventHandlers(audited(context)).redeliverEvent(
            create(RedeliverEventRequestSchema, { id: req.id }),
            context,
          )
        ).event,
      };
    },
    async listApiKeys(_req, context) {
      return { keys: (await listApiKeys(ctx, merchantOf(context))).map(encodeApiKey) };
    },
    async createApiKey(_req, context) {
      steppedUpMerchant(ctx, context);
      const { key, secret } = await createApiKey(audited(context), dashboardPrincipalOf(context));
      return { key: encodeApiKey(key), secret };
    },
    async revokeApiKey(req, context) {
      return { key: encodeApiKey(await revokeOneApiKey(audited(context), steppedUpMerchant(ctx, context), req.id)) };
    },
    async getSupportContact(_req, context) {
      return { contact: await getSupportContact(ctx, merchantOf(context).id) };
    },
    async updateSupportContact(req, context) {
      const contact = req.contact ?? { email: "", phone: "", url: "" };
      return { contact: await setSupportContact(audited(context), merchantOf(context).id, contact) };
    },
    async getWebhookSettings(_req, context) {
      return getWebhookSettings(ctx, merchantOf(context));
    },
    async updateWebhookSettings(req, context) {
      const settings = await updateWebhookSettings(audited(context), steppedUpMerchant(ctx, context), {
        url: req.url,
        rotateSecret: req.rotateSecret,
      });
      return { url: settings.url, secret: settings.secret };
    },
  };
}

function encodeApiKey(key: ApiKeyView): ApiKey {
  return create(ApiKeySchema, {
    id: key.id,
    prefix: key.prefix,
    createdAt: timestampFromDate(key.createdAt),
    revokedAt: key.revokedAt ? timestampFromDate(key.revokedAt) : undefined,
  });
}
