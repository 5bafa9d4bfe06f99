import { EventType, DeliveryStatus } from "../../gen/payments/v1/enums_pb.js";
import { newId } from "../domain/ids.js";
import type { Tx } from "../storage/transactor.js";

/** The event_type as it travels: the enum name, or the spec's test-trigger names. */
export function eventTypeName(type: EventType): string {
  if (type === EventType.TEST_CHARGE_CREATED) return "charge.created";
  if (type === EventType.TEST_CHARGE_FAIL) return "charge.fail";
  return `EVENT_TYPE_${EventType[type]}`;
}

/**
 * Writes a webhook event into the outbox, inside the caller's transaction: the event exists
 * exactly when the state change that caused it does (decisions.md, "Webhooks"). The content is
 * serialized here once; the dispatcher sends these bytes unchanged on every attempt.
 * Call `ctx.wake("events")` after the transaction commits.
 */
export async function recordEvent(
  trx: Tx,
  event: { merchantId: string; type: EventType; chargeId?: string; content: object; now: Date },
): Promise<string> {
  const id = newId("mwh");
  const at = event.now.toISOString();
  await trx
    .insertInto("events")
    .values({
      id,
      merchant_id: event.merchantId,
      event_type: event.type,
      event_type_name: eventTypeName(event.type),
      charge_id: event.chargeId ?? "",
      content_json: JSON.stringify(event.content),
      created_at: at,
      delivery_status: DeliveryStatus.PENDING,
      attempt_count: 0,
      next_attempt_at: at,
      lease_until: null,
      delivered_at: null,
    })
    .execute();
  return id;
}
