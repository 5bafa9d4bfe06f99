import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ListEventsRequest, PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { getEvent, redeliverEvent, searchEvents } from "../flows/events.js";
import type { FlowContext } from "../flows/flow-context.js";
import { merchantOf } from "./request-context.js";
import { encodeEvent } from "./encode.js";

/** A ListEvents request as the flow's query. */
export function eventQueryOf(req: ListEventsRequest) {
  return {
    eventType: req.eventType,
    chargeId: req.chargeId,
    createdAfter: req.createdAfter && timestampDate(req.createdAfter).toISOString(),
    createdBefore: req.createdBefore && timestampDate(req.createdBefore).toISOString(),
    pendingOnly: req.pendingOnly,
    pageSize: req.pageSize,
    pageToken: req.pageToken,
  };
}

/** PaymentService.GetEvent, ListEvents, RedeliverEvent: the merchant's webhook events and their attempts. */
export function createEventHandlers(
  ctx: FlowContext,
): Pick<ServiceImpl<typeof PaymentService>, "getEvent" | "listEvents" | "redeliverEvent"> {
  return {
    async getEvent(req, context) {
      const { event, attempts } = await getEvent(ctx, merchantOf(context), req.id);
      return { event: encodeEvent(event, attempts) };
    },
    async listEvents(req, context) {
      const page = await searchEvents(ctx, merchantOf(context), eventQueryOf(req));
      return {
        events: page.events.map(({ event, attempts }) => encodeEvent(event, attempts)),
        nextPageToken: page.nextPageToken,
      };
    },
    async redeliverEvent(req, context) {
      const { event, attempts } = await redeliverEvent(ctx, merchantOf(context), req.id);
      return { event: encodeEvent(event, attempts) };
    },
  };
}
