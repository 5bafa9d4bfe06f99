import { ChargeStatus, EventType, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import type { ChargeRecord, RefundRecord } from "./records.js";

/**
 * A charge's life as the charge page shows it (docs/guide/dashboard.md#the-charge-page), built from
 * what the service already records: the charge, its payment link and mandate, its Zengin debit,
 * its refunds and its webhook events. Nothing here is stored for the timeline's sake.
 */

export type ChargeTimelineKind =
  | "created"
  | "mandateAccepted"
  | "customerCompleted"
  | "bankFiled"
  | "succeeded"
  | "failed"
  | "refundAccepted"
  | "refundSettled"
  | "refundFailed"
  | "cancelled"
  | "webhookDelivered";

export interface ChargeTimelineEntry {
  readonly at: Date;
  readonly kind: ChargeTimelineKind;
  readonly refundId?: string;
  readonly amount?: number;
  readonly eventType?: EventType;
  readonly resultCode?: number;
  readonly fileName?: string;
}

/** What storage found about the charge beyond its own row and its refunds. */
export interface ChargeTimelineFacts {
  /** Its payment link's completion, when the customer finished the page. */
  readonly linkCompletedAt?: Date;
  /** The mandate accepted on its payment link. */
  readonly mandateAcceptedAt?: Date;
  /** Its Zengin debit: the request file and, once answered, the result code. */
  readonly debit?: { readonly fileName: string; readonly filedAt: Date; readonly resultCode: number | null };
  /** Its webhook events: when each was recorded and, once delivered, when. */
  readonly events: readonly { readonly type: EventType; readonly createdAt: Date; readonly deliveredAt: Date | null }[];
}

const order: readonly ChargeTimelineKind[] = [
  "created",
  "mandateAccepted",
  "customerCompleted",
  "bankFiled",
  "succeeded",
  "failed",
  "cancelled",
  "refundAccepted",
  "refundSettled",
  "refundFailed",
  "webhookDelivered",
];

/** Oldest first; at the same instant, in the order things happen (created before succeeded, before its webhook). */
export function chargeTimeline(
  charge: ChargeRecord,
  refunds: readonly RefundRecord[],
  facts: ChargeTimelineFacts,
): ChargeTimelineEntry[] {
  const entries: ChargeTimelineEntry[] = [{ at: charge.createdAt, kind: "created", amount: charge.amount }];
  if (facts.mandateAcceptedAt) entries.push({ at: facts.mandateAcceptedAt, kind: "mandateAccepted" });
  if (facts.linkCompletedAt) entries.push({ at: facts.linkCompletedAt, kind: "customerCompleted" });
  if (facts.debit) entries.push({ at: facts.debit.filedAt, kind: "bankFiled", fileName: facts.debit.fileName });
  const resultCode = facts.debit?.resultCode ?? undefined;
  const answer = (kind: "succeeded" | "failed", at: Date): ChargeTimelineEntry =>
    resultCode === undefined ? { at, kind } : { at, kind, resultCode };
  const succeeded = facts.events.find((e) => e.type === EventType.CHARGE_SUCCESS);
  const failed = facts.events.find((e) => e.type === EventType.CHARGE_FAIL);
  if (succeeded) entries.push(answer("succeeded", succeeded.createdAt));
  else if (charge.succeededAt) entries.push(answer("succeeded", charge.succeededAt));
  if (failed) entries.push(answer("failed", failed.createdAt));
  else if (charge.status === ChargeStatus.FAILURE) entries.push(answer("failed", charge.updatedAt));
  for (const refund of refunds) {
    const about = { refundId: refund.id, amount: refund.amount };
    if (refund.cancellation) {
      entries.push({ at: refund.createdAt, kind: "cancelled", ...about });
      continue;
    }
    entries.push({ at: refund.createdAt, kind: "refundAccepted", ...about });
    if (refund.status === RefundStatus.SUCCEEDED)
      entries.push({ at: refund.updatedAt, kind: "refundSettled", ...about });
    if (refund.status === RefundStatus.FAILED) entries.push({ at: refund.updatedAt, kind: "refundFailed", ...about });
  }
  for (const event of facts.events)
    if (event.deliveredAt) entries.push({ at: event.deliveredAt, kind: "webhookDelivered", eventType: event.type });
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort(
      (a, b) =>
        a.entry.at.getTime() - b.entry.at.getTime() ||
        order.indexOf(a.entry.kind) - order.indexOf(b.entry.kind) ||
        a.index - b.index,
    )
    .map(({ entry }) => entry);
}
