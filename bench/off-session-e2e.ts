// npx tsx bench/off-session-e2e.ts: end-to-end off-session charges per second. Starts the service
// on a fresh SQLite file (every acknowledged write fsynced) with the sandbox bank, then sends
// BENCH_OFF_SESSION_CHARGES (2000) CreateOffSessionPaymentAsync calls over HTTP,
// BENCH_OFF_SESSION_CONNECTIONS (32) at a time, each with its own idempotency key, spread over
// BENCH_OFF_SESSION_CUSTOMERS (50) customers, and prints one JSON object on stdout:
//   acceptedPerSecond:  calls answered (HTTP 200, ASYNC_STATUS_PENDING) per second, with p50/p99;
//   engineWhileAcceptingPerSecond, backlogWhenAcceptsEnded: requests the engine brought to SUCCEEDED
//                       per second while the calls came in, and how many were left when they ended
//                       (the engine keeps pace when this rate reaches acceptedPerSecond);
//   chargesPerSecond:   charges from the first call to the last request terminal (SUCCEEDED), per
//                       second — accept, engine job, bank debit, settlement and CHARGE_SUCCESS event.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { AsyncStatus } from "../gen/payments/v1/enums_pb.js";
import { loadConfig } from "../src/config.js";
import { createMerchant } from "../src/flows/merchants.js";
import { startService } from "../src/composition-root.js";
import { seedActiveCustomer } from "../test/helpers/fixtures.js";

const chargeCount = Number(process.env.BENCH_OFF_SESSION_CHARGES ?? 2000);
const connections = Number(process.env.BENCH_OFF_SESSION_CONNECTIONS ?? 32);
const customerCount = Number(process.env.BENCH_OFF_SESSION_CUSTOMERS ?? 50);

const dir = mkdtempSync(join(tmpdir(), "furikomi-bench-off-session-"));
const config = loadConfig({
  ...process.env,
  MODE: "sandbox",
  PORT: "0",
  HOST: "127.0.0.1",
  DATABASE_URL: `file:${join(dir, "bench.db")}`,
  LOG_LEVEL: "silent",
});
const service = await startService(config, { logger: pino({ level: "silent" }) });
const merchant = await createMerchant(service.ctx, { name: "Bench Shop" });
const customerIds: string[] = [];
for (let i = 0; i < customerCount; i++) {
  customerIds.push(
    (await seedActiveCustomer({ merchant, clock: service.ctx.clock, ctx: service.ctx }, { balance: 1e12 })).customerId,
  );
}

const latencies: number[] = [];
let next = 0;
const started = performance.now();
async function caller(): Promise<void> {
  while (next < chargeCount) {
    const i = next++;
    const sent = performance.now();
    const res = await fetch(`${service.url}/v1/payments/off-session/async`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${merchant.api_key}`,
        "content-type": "application/json",
        "idempotency-key": `bench-${i}`,
      },
      body: JSON.stringify({
        customer_id: customerIds[i % customerCount],
        charge: { price: 1, description: `bench ${i}` },
      }),
    });
    if (res.status !== 200) throw new Error(`call ${i} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    latencies.push(performance.now() - sent);
  }
}
const succeeded = () =>
  service.ctx.tx.db
    .selectFrom("async_requests")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", AsyncStatus.SUCCEEDED)
    .executeTakeFirstOrThrow()
    .then((row) => Number(row.n));
await Promise.all(Array.from({ length: connections }, caller));
const acceptedAt = performance.now();
// What the engine completed while the calls came in: it keeps pace when this is about all of them.
const succeededWhileAccepting = await succeeded();

while ((await succeeded()) < chargeCount) await new Promise((resolve) => setTimeout(resolve, 20));
const finishedAt = performance.now();

latencies.sort((a, b) => a - b);
const percentile = (p: number) =>
  Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]);
console.log(
  JSON.stringify({
    charges: chargeCount,
    connections,
    acceptedPerSecond: Math.round(chargeCount / ((acceptedAt - started) / 1000)),
    acceptP50Ms: percentile(50),
    acceptP99Ms: percentile(99),
    engineWhileAcceptingPerSecond: Math.round(succeededWhileAccepting / ((acceptedAt - started) / 1000)),
    backlogWhenAcceptsEnded: chargeCount - succeededWhileAccepting,
    chargesPerSecond: Math.round(chargeCount / ((finishedAt - started) / 1000)),
    lastTerminalAfterMs: Math.round(finishedAt - started),
  }),
);
await service.close();
rmSync(dir, { recursive: true, force: true });
