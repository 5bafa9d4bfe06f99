import type { EventType } from "../../gen/payments/v1/enums_pb.js";
import type { ChargeTimelineFacts } from "../domain/charge-timeline.js";
import { limits } from "../domain/limits.js";
import type { ChargeRecord } from "../domain/records.js";
import type { Tx } from "./transactor.js";

/** What the service recorded about one charge beyond its row and refunds (domain/charge-timeline.ts). */
export async function chargeTimelineFacts(db: Tx, charge: ChargeRecord): Promise<ChargeTimelineFacts> {
  const linkId = charge.onSessionId;
  const [link, mandate, debit, events] = await Promise.all([
    linkId
      ? db
          .selectFrom("payment_links")
          .select("completed_at")
          .where("id", "=", linkId)
          .where("merchant_id", "=", charge.merchantId)
          .executeTakeFirst()
      : undefined,
    linkId && charge.contractId
      ? db
          .selectFrom("mandates")
          .select("accepted_at")
          // By the mandates_contract index.
          .where("contract_id", "=", charge.contractId)
          .where("link_id", "=", linkId)
          .where("merchant_id", "=", charge.merchantId)
          .orderBy("accepted_at")
          .executeTakeFirst()
      : undefined,
    db
      .selectFrom("zengin_debits as d")
      .innerJoin("zengin_files as f", "f.id", "d.file_id")
      .select(["f.name", "f.created_at", "d.result_code"])
      .where("d.reference", "=", charge.id)
      .where("d.merchant_id", "=", charge.merchantId)
      .executeTakeFirst(),
    db
      .selectFrom("events")
      .select(["event_type", "created_at", "delivered_at"])
      .where("charge_id", "=", charge.id)
      .where("merchant_id", "=", charge.merchantId)
      .orderBy("seq")
      .limit(limits.chargeTimelineEventsMax)
      .execute(),
  ]);
  const date = (value: string | null | undefined) => (value ? new Date(value) : undefined);
  return {
    linkCompletedAt: date(link?.completed_at),
    mandateAcceptedAt: date(mandate?.accepted_at),
    debit: debit && {
      fileName: debit.name,
      filedAt: new Date(debit.created_at),
      resultCode: debit.result_code === null ? null : Number(debit.result_code),
    },
    events: events.map((e) => ({
      type: e.event_type as EventType,
      createdAt: new Date(e.created_at),
      deliveredAt: date(e.delivered_at) ?? null,
    })),
  };
}
