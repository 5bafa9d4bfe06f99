// npx tsx bench/webhook-throughput.ts: webhook delivery throughput and lag. Starts the service on a
// fresh SQLite file with a local receiver that answers 200 at once, records events the way the
// payment flows do (recordEvent inside a write transaction, then ctx.wake("events")), and prints
// one JSON object on stdout:
//   burst:  BENCH_WEBHOOK_EVENTS (5000) events recorded as fast as possible, 100 per transaction:
//           eventsPerSecond = events / (last delivery − first commit), burstP99LagMs includes queueing;
//   steady: events at half the burst rate for BENCH_WEBHOOK_STEADY_SECONDS (5):
//           p99LagMs = the 99th percentile of (arrival at the receiver − created_at), without a backlog.
// Events are spread over BENCH_WEBHOOK_MERCHANTS (4) merchants (8 attempts in flight per merchant).
// The receiver runs in the same process as the service, so the figures are a lower bound.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { EventType } from "../gen/payments/v1/enums_pb.js";
import { loadConfig } from "../src/config.js";
import { createMerchant } from "../src/flows/merchants.js";
import { recordEvent } from "../src/storage/events.js";
import { startService } from "../src/composition-root.js";
import { startLoopbackReceiver } from "./loopback-receiver.js";

const burstEvents = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 5000);
const steadySeconds = Number(process.env.BENCH_WEBHOOK_STEADY_SECONDS ?? 5);
const merchantCount = Number(process.env.BENCH_WEBHOOK_MERCHANTS ?? 4);
const batchSize = 100;

const receiver = await startLoopbackReceiver();
const { arrivals } = receiver;

const dir = mkdtempSync(join(tmpdir(), "furikomi-bench-webhooks-"));
const config = loadConfig({
  ...process.env,
  MODE: "sandbox",
  PORT: "0",
  HOST: "127.0.0.1",
  DATABASE_URL: `file:${join(dir, "bench.db")}`,
  LOG_LEVEL: "silent",
});
const service = await startService(config, { logger: pino({ level: "silent" }) });
const merchants: string[] = [];
for (let i = 0; i < merchantCount; i++) {
  merchants.push(
    (await createMerchant(service.ctx, { name: `Bench Shop ${i}`, webhookUrl: `${receiver.url}/m${i}` })).merchant_id,
  );
}

let sequence = 0;
/** Records `count` events in one transaction, as a payment flow would, and rings the dispatcher. */
async function recordBatch(count: number): Promise<string[]> {
  const ids = await service.ctx.tx.write(async (trx) => {
    const now = service.ctx.clock.now();
    const recorded: string[] = [];
    for (let i = 0; i < count; i++) {
      const n = sequence++;
      const chargeId = `trx-bench${n}`;
      const content = {
        id: chargeId,
        customer: "cus-bench",
        description: "bench",
        merchant_name: "Bench Shop",
        initial_amount: 1200,
        discount: 0,
        final_amount: 1200,
        currency: "JPY",
      };
      recorded.push(
        await recordEvent(trx, {
          merchantId: merchants[n % merchants.length],
          type: EventType.CHARGE_SUCCESS,
          chargeId,
          content,
          now,
        }),
      );
    }
    return recorded;
  });
  service.ctx.wake("events");
  return ids;
}

function arrivedAll(ids: string[]): Promise<void> {
  return receiver.until(() => ids.every((id) => arrivals.has(id)));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const lagsOf = (ids: string[]) => ids.map((id) => arrivals.get(id)!).map((a) => a.arrivedAt - a.createdAt);

try {
  // Burst: everything at once.
  const burstStart = Date.now();
  const burstIds: string[] = [];
  for (let recorded = 0; recorded < burstEvents; recorded += batchSize)
    burstIds.push(...(await recordBatch(Math.min(batchSize, burstEvents - recorded))));
  await arrivedAll(burstIds);
  const burstSeconds = (Math.max(...burstIds.map((id) => arrivals.get(id)!.arrivedAt)) - burstStart) / 1000;
  const eventsPerSecond = Math.round(burstEvents / burstSeconds);
  const burstLags = lagsOf(burstIds);

  // Steady: half the burst rate, in batches of 10 spread over the second.
  const steadyRate = Math.max(10, Math.round(eventsPerSecond / 2));
  const steadyIds: string[] = [];
  const intervalMs = (10 / steadyRate) * 1000;
  const steadyEnd = Date.now() + steadySeconds * 1000;
  while (Date.now() < steadyEnd) {
    const next = Date.now() + intervalMs;
    steadyIds.push(...(await recordBatch(10)));
    await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
  }
  await arrivedAll(steadyIds);
  const steadyLags = lagsOf(steadyIds);

  console.log(
    JSON.stringify({
      scenario: "webhook-throughput",
      events: burstEvents,
      merchants: merchantCount,
      eventsPerSecond,
      p99LagMs: percentile(steadyLags, 99),
      p50LagMs: percentile(steadyLags, 50),
      steadyEventsPerSecond: steadyRate,
      steadyEvents: steadyIds.length,
      burstP50LagMs: percentile(burstLags, 50),
      burstP99LagMs: percentile(burstLags, 99),
      database: "sqlite",
    }),
  );
} finally {
  await service.close();
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
