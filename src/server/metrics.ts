import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Logger } from "pino";
import type { Clock } from "../ports/clock.js";
import type { WebhookTransport } from "../ports/webhook-transport.js";
import type { QueueStat, QueueStats } from "../storage/queue-stats.js";

/**
 * The Prometheus metrics of one service (GET /metrics; docs/operations/monitoring.md): calls by method and
 * code, their latency, the depth and age of the work queues, webhook delivery outcomes, and the
 * process (memory, CPU, event loop lag).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly calls = new Counter({
    name: "furikomi_rpc_requests_total",
    help: "RPC calls (all protocols and the plain HTTP paths) by method and Connect code",
    labelNames: ["method", "code"] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: "furikomi_rpc_duration_seconds",
    help: "RPC latency by method, from the first interceptor to the answer",
    labelNames: ["method"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: "furikomi_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome: delivered (2xx), rejected (other status), failed (no answer)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  constructor(queueStats: () => Promise<QueueStats>, clock: Clock, logger: Logger) {
    collectDefaultMetrics({ register: this.registry });
    // A scrape reads the gauges in parallel: they share one round of queries.
    let round: Promise<void> | undefined;
    const collect = () => (round ??= refresh().finally(() => (round = undefined)));
    const gauge = (name: string, help: string, labelNames: string[] = []) =>
      new Gauge({ name, help, labelNames, registers: [this.registry], collect });
    const depth = gauge("furikomi_queue_depth", "Items waiting in each queue", ["queue"]);
    const age = gauge(
      "furikomi_queue_oldest_age_seconds",
      "Age of the oldest waiting item of each queue (0 when empty)",
      ["queue"],
    );
    const failedEvents = gauge("furikomi_webhook_events_failed", "Events whose delivery retries ran out");
    const up = gauge("furikomi_database_up", "1 when the last scrape could read the queues from the database");
    const refresh = async () => {
      try {
        const stats = await queueStats();
        const now = clock.now().getTime();
        depth.reset();
        age.reset();
        const report = (queue: string, stat: QueueStat) => {
          depth.set({ queue }, stat.depth);
          age.set({ queue }, stat.oldest ? Math.max(0, (now - Date.parse(stat.oldest)) / 1000) : 0);
        };
        report("async_requests", stats.asyncRequests);
        report("webhook_outbox", stats.webhookOutbox);
        for (const [kind, stat] of stats.jobs) report(`jobs:${kind}`, stat);
        failedEvents.set(stats.webhookFailedEvents);
        up.set(1);
      } catch (error) {
        logger.warn({ err: error }, "metrics: queue statistics unavailable");
        up.set(0);
      }
    };
  }

  /** Counts and times every RPC; outermost, so it sees the code the client gets. */
  interceptor(): Interceptor {
    return (next) => async (req) => {
      const method = `${req.service.typeName}/${req.method.name}`;
      const stop = this.latency.startTimer({ method });
      try {
        const res = await next(req);
        this.calls.inc({ method, code: "ok" });
        return res;
      } catch (error) {
        this.calls.inc({ method, code: codeName(error instanceof ConnectError ? error.code : Code.Unknown) });
        throw error;
      } finally {
        stop();
      }
    };
  }

  /** The transport, counting each attempt's outcome. */
  countDeliveries(transport: WebhookTransport): WebhookTransport {
    return {
      post: async (...args) => {
        const answer = await transport.post(...args);
        if (!answer.aborted) {
          const outcome =
            answer.httpStatus >= 200 && answer.httpStatus < 300
              ? "delivered"
              : answer.httpStatus
                ? "rejected"
                : "failed";
          this.deliveries.inc({ outcome });
        }
        return answer;
      },
      close: () => transport.close(),
    };
  }
}

/** invalid_argument, resource_exhausted, … as on the wire. */
function codeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}
