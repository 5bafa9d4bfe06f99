import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { decodePageToken, encodePageToken, pageSize } from "../domain/page-token.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import type { DeliveryAttemptRecord, EventRecord } from "../domain/records.js";
import { attemptsOfEvents, findEvent, listEvents, requeueEvent, type EventFilter } from "../storage/events.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";

/** An event with its delivery attempts, oldest attempt first. */
export interface EventWithAttempts {
  event: EventRecord;
  attempts: DeliveryAttemptRecord[];
}

const notFound = (id: string) => new PaymentFailure(PaymentErrorCode.NOT_FOUND, `event ${id} not found`);

export async function getEvent(ctx: FlowContext, merchant: MerchantPrincipal, id: string): Promise<EventWithAttempts> {
  const event = await findEvent(ctx.tx.db, merchant.id, id);
  if (!event) throw notFound(id);
  const attempts = await attemptsOfEvents(ctx.tx.db, [event.id]);
  return { event, attempts: attempts.get(event.id) ?? [] };
}

/** The merchant's events, newest first, filtered, one page at a time. */
export async function searchEvents(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  query: EventFilter & { pageSize: number; pageToken: string },
): Promise<{ events: EventWithAttempts[]; nextPageToken: string }> {
  const limit = pageSize(query.pageSize);
  // The cursor's second key is the event's recording order (seq), which breaks created_at ties.
  const cursor = decodePageToken(query.pageToken);
  const after = cursor && { createdAt: cursor.createdAt, seq: Number(cursor.id) };
  if (after && !Number.isSafeInteger(after.seq))
    throw new PaymentFailure(PaymentErrorCode.BAD_REQUEST, "page_token: not a token this API returned");
  const rows = await listEvents(ctx.tx.db, merchant.id, { ...query, limit: limit + 1, after });
  const page = rows.slice(0, limit);
  const attempts = await attemptsOfEvents(
    ctx.tx.db,
    page.map((e) => e.id),
  );
  const last = page[page.length - 1];
  return {
    events: page.map((event) => ({ event, attempts: attempts.get(event.id) ?? [] })),
    nextPageToken:
      rows.length > limit && last
        ? encodePageToken({ createdAt: last.createdAt.toISOString(), id: String(last.seq) })
        : "",
  };
}

/**
 * Queues an event for delivery again now, whatever its state: same id, a new 3-day retry cycle,
 * its earlier attempts kept.
 */
export async function redeliverEvent(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  id: string,
): Promise<EventWithAttempts> {
  const now = ctx.clock.now().toISOString();
  const found = await ctx.tx.write(async (trx) => {
    const requeued = await requeueEvent(trx, merchant.id, id, now);
    if (requeued) await ctx.audit?.(trx, { action: "webhook.redeliver", target: id });
    return requeued;
  });
  if (!found) throw notFound(id);
  ctx.wake("events");
  return getEvent(ctx, merchant, id);
}
