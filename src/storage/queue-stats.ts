import { sql } from "kysely";
import { AsyncStatus, DeliveryStatus } from "../../gen/payments/v1/enums_pb.js";
import type { Tx } from "./transactor.js";
import { zenginAlerts } from "./zengin.js";

/** How much work waits in one queue, and since when (the oldest item's time; undefined when empty). */
export interface QueueStat {
  readonly depth: number;
  readonly oldest: string | undefined;
}

export interface QueueStats {
  /** Background jobs waiting to run, by kind (async charges, refund settlements, …). */
  readonly jobs: ReadonlyMap<string, QueueStat>;
  /** Async payment requests not yet terminal. */
  readonly asyncRequests: QueueStat;
  /** Webhook events not yet delivered to a merchant that has a webhook URL (the outbox), and events whose retries ran out. */
  readonly webhookOutbox: QueueStat;
  readonly webhookFailedEvents: number;
  /** Zengin files in quarantine, and request files whose results are overdue. */
  readonly zengin: { readonly quarantined: number; readonly overdue: number };
}

/** The queue sizes the /metrics endpoint reports; aggregate queries only. */
export async function queueStats(db: Tx, now: Date): Promise<QueueStats> {
  const [jobs, asyncRequests, outbox, failed, zengin] = await Promise.all([
    db
      .selectFrom("jobs")
      .select(["kind", sql<number>`count(*)`.as("depth"), sql<string>`min(run_at)`.as("oldest")])
      .where("state", "=", "pending")
      .groupBy("kind")
      .execute(),
    db
      .selectFrom("async_requests")
      .select([sql<number>`count(*)`.as("depth"), sql<string | null>`min(created_at)`.as("oldest")])
      .where("status", "in", [AsyncStatus.PENDING, AsyncStatus.RUNNING])
      .executeTakeFirstOrThrow(),
    // Only events with somewhere to go: a merchant without a webhook URL keeps its events to read.
    db
      .selectFrom("events as e")
      .innerJoin("merchants as m", "m.id", "e.merchant_id")
      .select([sql<number>`count(*)`.as("depth"), sql<string | null>`min(e.created_at)`.as("oldest")])
      .where("e.delivery_status", "=", DeliveryStatus.PENDING)
      .where("m.webhook_url", "!=", "")
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("events")
      .select(sql<number>`count(*)`.as("n"))
      .where("delivery_status", "=", DeliveryStatus.FAILED)
      .executeTakeFirstOrThrow(),
    zenginAlerts(db, now),
  ]);
  const stat = (row: { depth: number | string; oldest: string | null }): QueueStat => ({
    depth: Number(row.depth),
    oldest: row.oldest ?? undefined,
  });
  return {
    jobs: new Map(jobs.map((row) => [row.kind, stat(row)])),
    asyncRequests: stat(asyncRequests),
    webhookOutbox: stat(outbox),
    webhookFailedEvents: Number(failed.n),
    zengin,
  };
}
