// npm run bench -- --soak [--duration 10m] [--rate 200] [--connections 16]: a steady mix of the
// main RPCs against one furikomi process (SQLite, every acknowledged write fsynced) for the whole duration, in
// windows; prints each window's throughput, p99, errors, the server's memory and queue depth
// (from its /metrics), then a summary with the memory growth from the first to the last window,
// and writes it to bench/results/soak.json. A soak finds leaks and slow drifts, not peak speed:
// the rate is fixed (autocannon overallRate) well below saturation.
import autocannon from "autocannon";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../src/ports/clock.js";
import { startFurikomi } from "./process.js";
import { openStorage } from "../src/storage/database.js";
import { Transactor } from "../src/storage/transactor.js";
import { seedActiveCustomer } from "../test/helpers/fixtures.js";

const root = new URL("..", import.meta.url).pathname;

interface SoakOptions {
  seconds: number;
  rate: number;
  connections: number;
}

/** "10m", "90s", "600" (seconds). */
function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text);
  if (!match) throw new Error(`--duration: expected e.g. 10m, 90s or 600, not ${text}`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[(match[2] ?? "s") as "s" | "m" | "h"];
}

function parseOptions(argv: string[]): SoakOptions {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  return {
    seconds: parseDuration(value("--duration") ?? "10m"),
    rate: Number(value("--rate") ?? 200),
    connections: Number(value("--connections") ?? 16),
  };
}

async function startServer(databaseUrl: string): Promise<{ url: string; stop(): void }> {
  const env = { MODE: "sandbox", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", DATABASE_URL: databaseUrl };
  const { url, child } = await startFurikomi(env);
  return { url, stop: () => child.kill("SIGTERM") };
}

/** Provisions a merchant (CLI), a customer with an endless balance, and a large settled charge to refund 1 yen at a time. */
async function prepare(url: string, databaseUrl: string) {
  const merchant = JSON.parse(
    execFileSync(process.execPath, ["bin/furikomi.js", "merchants", "create", "--name", "Soak Shop"], {
      cwd: root,
      env: { ...process.env, MODE: "sandbox", DATABASE_URL: databaseUrl },
    }).toString(),
  );
  const storage = await openStorage(databaseUrl);
  const { customerId } = await seedActiveCustomer(
    { merchant, clock: systemClock, ctx: { tx: new Transactor(storage) } },
    { balance: 1e12 },
  );
  await storage.close();
  const headers = { "content-type": "application/json", authorization: `Bearer ${merchant.api_key}` };
  const call = async (method: string, body: object) => {
    const res = await fetch(`${url}/payments.v1.PaymentService/${method}`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const big = await call("CreateOffSessionPayment", {
    customerId,
    charge: { price: 10_000_000, description: "soak refund pool" },
  });
  const chargeId: string = big.charge.chargeId;
  const rpc = (method: string, body: object) => ({
    method: "POST" as const,
    path: `/payments.v1.PaymentService/${method}`,
    headers,
    body: JSON.stringify(body),
  });
  // The mix each connection cycles through: reads and writes of the main flows.
  return [
    rpc("GetCharge", { charge: chargeId }),
    rpc("CreateOffSessionPaymentAsync", {
      customerId,
      charge: { price: 1, description: "soak", metadata: { run: "soak" } },
    }),
    rpc("GetCustomer", { customer: customerId }),
    rpc("Refund", { chargeId, amount: 1 }),
    rpc("ListCustomers", { pageSize: 20 }),
    rpc("CreateOnSessionPayment", {
      buyer: { email: "soak@example.jp" },
      charge: { price: 1200, description: "soak" },
      redirect: { successUrl: "https://shop.example.jp/thanks", failureUrl: "https://shop.example.jp/sorry" },
    }),
    rpc("ListEvents", { pageSize: 20 }),
  ];
}

/** The server's own view: resident memory, heap in use, and the async engine's backlog. */
async function serverGauges(url: string) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (series: string) =>
    Number(
      text
        .split("\n")
        .find((line) => line.startsWith(series + " "))
        ?.slice(series.length + 1) ?? NaN,
    );
  return {
    rssMb: Math.round(value("process_resident_memory_bytes") / 1e5) / 10,
    heapUsedMb: Math.round(value("nodejs_heap_size_used_bytes") / 1e5) / 10,
    asyncBacklog: value('furikomi_queue_depth{queue="async_requests"}'),
    outboxBacklog: value('furikomi_queue_depth{queue="webhook_outbox"}'),
  };
}

export async function runSoak(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
  const windows = Math.max(1, Math.min(20, Math.round(options.seconds / 30)));
  const windowSeconds = Math.max(1, Math.round(options.seconds / windows));
  const dir = mkdtempSync(join(tmpdir(), "furikomi-soak-"));
  const databaseUrl = `file:${join(dir, "soak.db")}`;
  const server = await startServer(databaseUrl);
  console.log(
    `soak: ${windows} × ${windowSeconds} s at ${options.rate} req/s over ${options.connections} connections against ${server.url}`,
  );
  const rows: Array<Record<string, number>> = [];
  try {
    const requests = await prepare(server.url, databaseUrl);
    for (let window = 1; window <= windows; window++) {
      const result = await autocannon({
        url: server.url,
        requests,
        connections: options.connections,
        overallRate: options.rate,
        duration: windowSeconds,
      });
      const gauges = await serverGauges(server.url);
      const row = {
        window,
        requestsPerSecond: Math.round(result.requests.average),
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
        ...gauges,
      };
      rows.push(row);
      console.log(
        `window ${String(window).padStart(2)}  ${String(row.requestsPerSecond).padStart(5)} req/s  p50 ${row.p50Ms} ms  p99 ${row.p99Ms} ms  ` +
          `non-2xx ${row.non2xx}  errors ${row.errors}  rss ${row.rssMb} MB  heap ${row.heapUsedMb} MB  async backlog ${row.asyncBacklog}  outbox ${row.outboxBacklog}`,
      );
    }
  } finally {
    server.stop();
  }
  const first = rows[0];
  const last = rows[rows.length - 1];
  const summary = {
    at: new Date().toISOString(),
    seconds: windows * windowSeconds,
    rate: options.rate,
    connections: options.connections,
    requests: rows.reduce((sum, r) => sum + r.requestsPerSecond * windowSeconds, 0),
    requestsPerSecond: Math.round(rows.reduce((sum, r) => sum + r.requestsPerSecond, 0) / rows.length),
    worstP99Ms: Math.max(...rows.map((r) => r.p99Ms)),
    non2xx: rows.reduce((sum, r) => sum + r.non2xx, 0),
    errors: rows.reduce((sum, r) => sum + r.errors, 0),
    // From the end of the first window (warmed up) to the end of the last.
    rssGrowthMb: Math.round((last.rssMb - first.rssMb) * 10) / 10,
    heapGrowthMb: Math.round((last.heapUsedMb - first.heapUsedMb) * 10) / 10,
    goals: soakGoals(rows),
    windows: rows,
  };
  console.log(
    `soak summary: ${summary.requestsPerSecond} req/s, worst p99 ${summary.worstP99Ms} ms, non-2xx ${summary.non2xx}, errors ${summary.errors}, ` +
      `rss ${first.rssMb} → ${last.rssMb} MB (${summary.rssGrowthMb >= 0 ? "+" : ""}${summary.rssGrowthMb}), heap ${first.heapUsedMb} → ${last.heapUsedMb} MB (${summary.heapGrowthMb >= 0 ? "+" : ""}${summary.heapGrowthMb})`,
  );
  for (const goal of summary.goals)
    console.log(`  ${goal.met ? "met    " : "NOT MET"}  ${goal.goal}: ${goal.measured}`);
  mkdirSync(join(root, "bench/results"), { recursive: true });
  writeFileSync(join(root, "bench/results/soak.json"), JSON.stringify(summary, null, 2));
  console.log("written bench/results/soak.json");
}

/**
 * The soak's goals (docs/operations/benchmark.md), from the first window (warmed up) to the last:
 * throughput kept, p99 flat, memory flat, no errors, the async and outbox backlogs not growing.
 */
function soakGoals(rows: Array<Record<string, number>>) {
  const first = rows[0];
  const last = rows[rows.length - 1];
  const failures = rows.reduce((sum, row) => sum + row.non2xx + row.errors, 0);
  const goal = (name: string, measured: string, met: boolean) => ({ goal: name, measured, met });
  return [
    goal(
      "last window's throughput ≥ 95 % of the first",
      `${last.requestsPerSecond} vs ${first.requestsPerSecond} req/s`,
      last.requestsPerSecond >= 0.95 * first.requestsPerSecond,
    ),
    goal(
      "p99 flat (last ≤ 1.2 × first + 2 ms)",
      `${last.p99Ms} vs ${first.p99Ms} ms`,
      last.p99Ms <= 1.2 * first.p99Ms + 2,
    ),
    goal("RSS growth < 10 %", `${first.rssMb} → ${last.rssMb} MB`, last.rssMb < 1.1 * first.rssMb),
    goal("zero errors", `${failures} non-2xx or failed requests in all windows`, failures === 0),
    goal(
      "async and outbox backlogs flat (last ≤ first + 10)",
      `async ${first.asyncBacklog} → ${last.asyncBacklog}, outbox ${first.outboxBacklog} → ${last.outboxBacklog}`,
      last.asyncBacklog <= first.asyncBacklog + 10 && last.outboxBacklog <= first.outboxBacklog + 10,
    ),
  ];
}
