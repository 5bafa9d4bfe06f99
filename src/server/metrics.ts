import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Logger } from "pino";
import { codeName } from "./code-name.js";
import { ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import type { BankGateway, BankResult } from "../ports/bank-gateway.js";
import type { BusinessMetrics } from "../ports/business-metrics.js";
import type { Clock } from "../ports/clock.js";
import type { WebhookTransport } from "../ports/webhook-transport.js";
import type { QueueStat, QueueStats } from "../storage/queue-stats.js";

/**
 * The Prometheus metrics of one service (GET /metrics; docs/operations/monitoring.md): calls by method and
 * code, their latency, the depth and age of the work queues, webhook delivery outcomes and latency,
 * charges by outcome and ErrorType, bank call latency, background job runs, and the process
 * (memory, CPU, event loop lag).
 */
export class Metrics implements BusinessMetrics {
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

  private readonly deliveryLatency = new Histogram({
    name: "furikomi_webhook_delivery_duration_seconds",
    help: "Time one webhook delivery attempt took (connect, send, answer), by outcome",
    labelNames: ["outcome"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly charges = new Counter({
    name: "furikomi_charges_total",
    help: "Charges settled by this instance, by outcome (success, failure) and ErrorType (none on success)",
    labelNames: ["outcome", "error_type"] as const,
    registers: [this.registry],
  });
  private readonly bankCalls = new Histogram({
    name: "furikomi_bank_call_duration_seconds",
    help: "Bank calls (debit, refund) by operation and result: ok, refused (an answer with an ErrorType), error (no answer)",
    labelNames: ["operation", "result"] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly jobRuns = new Counter({
    name: "furikomi_job_runs_total",
    help: "Background job runs by kind and outcome: done, retry (the job asked to run later), error (it threw; retried with backoff)",
    labelNames: ["kind", "outcome"] as const,
    registers: [this.registry],
  });
  /** Result files moved to quarantine by this process (the alert; the dashboard lists them all). */
  readonly zenginQuarantined = new Counter({
    name: "furikomi_zengin_files_quarantined_total",
    help: "Zengin result files quarantined (nothing of them applied)",
    registers: [this.registry],
  });

  /** Refunds recorded as failed that a 総合振込 answer says were paid (the alert; reconcile names them). */
  readonly zenginPaidAfterFailure = new Counter({
    name: "furikomi_zengin_refunds_paid_after_failure_total",
    help: "Refunds recorded as failed that a Zengin 総合振込 answer says were paid",
    registers: [this.registry],
  });
  /** Files in incoming/ with a name the exchange does not expect (reported, never skipped silently). */
  readonly zenginUnexpectedFiles = new Counter({
    name: "furikomi_zengin_unexpected_files_total",
    help: "Files found in the Zengin incoming folder with an unexpected name",
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
    const zenginOverdue = gauge(
      "furikomi_zengin_results_overdue",
      "Zengin request files whose results have not come by ZENGIN_RESULT_DEADLINE_DAYS business days after their date",
    );
    const zenginQuarantinedFiles = gauge("furikomi_zengin_files_quarantined", "Zengin result files in quarantine");
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
        zenginOverdue.set(stats.zengin.overdue);
        zenginQuarantinedFiles.set(stats.zengin.quarantined);
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

  chargeSettled(charge: { readonly status: ChargeStatus; readonly errorType: ErrorType }): void {
    const success = charge.status === ChargeStatus.SUCCESS;
    this.charges.inc({
      outcome: success ? "success" : "failure",
      error_type: success ? "none" : `ERROR_TYPE_${ErrorType[charge.errorType]}`,
    });
  }

  jobRan(kind: string, outcome: "done" | "retry" | "error"): void {
    this.jobRuns.inc({ kind, outcome });
  }

  /** The bank, timing each call. */
  timeBank(bank: BankGateway): BankGateway {
    return new TimedBank(bank, this.bankCalls);
  }

  /** The transport, counting and timing each attempt's outcome. */
  countDeliveries(transport: WebhookTransport): WebhookTransport {
    return {
      post: async (...args) => {
        const stop = this.deliveryLatency.startTimer();
        const answer = await transport.post(...args);
        if (!answer.aborted) {
          const outcome =
            answer.httpStatus >= 200 && answer.httpStatus < 300
              ? "delivered"
              : answer.httpStatus
                ? "rejected"
                : "failed";
          this.deliveries.inc({ outcome });
          stop({ outcome });
        }
        return answer;
      },
      close: () => transport.close(),
    };
  }
}

/** A bank whose calls are timed, by operation and result (a class: tests replace a method on the instance). */
class TimedBank implements BankGateway {
  constructor(
    private readonly bank: BankGateway,
    private readonly histogram: Histogram<"operation" | "result">,
  ) {}

  debit(request: Parameters<BankGateway["debit"]>[0]): Promise<BankResult> {
    return this.#timed("debit", () => this.bank.debit(request), answered);
  }

  refund(request: Parameters<BankGateway["refund"]>[0]): Promise<BankResult> {
    return this.#timed("refund", () => this.bank.refund(request), answered);
  }

  /** A batch of debits, timed as one call of its own operation (each answer counted by debit's result is the batch's work). */
  get debitMany(): BankGateway["debitMany"] {
    const many = this.bank.debitMany?.bind(this.bank);
    if (!many) return undefined;
    return (requests) =>
      this.#timed(
        "debit_many",
        () => many(requests),
        (answers) => answers.every(answered),
      );
  }

  /** Scheduled inside the caller's transaction (a Zengin file's item): not a bank call, not timed. */
  get schedule(): BankGateway["schedule"] {
    return this.bank.schedule?.bind(this.bank);
  }

  /** A date worked out from the merchant's contracts: not a bank call, not timed. */
  get debitDateFor(): BankGateway["debitDateFor"] {
    return this.bank.debitDateFor?.bind(this.bank);
  }

  /** Many debits scheduled at once (a subscription cycle's page): not a bank call, not timed. */
  get scheduleDebits(): BankGateway["scheduleDebits"] {
    return this.bank.scheduleDebits?.bind(this.bank);
  }

  /** A booking reversed inside the caller's transaction: not a bank call, not timed. */
  reverseBooking(...args: Parameters<BankGateway["reverseBooking"]>): Promise<void> {
    return this.bank.reverseBooking(...args);
  }

  async #timed<T>(operation: string, call: () => Promise<T>, ok: (result: T) => boolean): Promise<T> {
    const stop = this.histogram.startTimer({ operation });
    try {
      const result = await call();
      stop({ result: ok(result) ? "ok" : "refused" });
      return result;
    } catch (error) {
      stop({ result: "error" });
      throw error;
    }
  }
}

/** A bank call's result label: "ok" when the bank took it, "refused" otherwise. */
const answered = (result: BankResult) => result.ok;
