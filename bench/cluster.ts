// npm run bench -- --cluster: the main RPCs on PostgreSQL, served by 1 and then by 2 instances
// sharing one schema, with the same total load (BENCH_CONNECTIONS, split evenly over the
// instances, each instance its own autocannon run at the same time). Prints requests/s and p99
// per RPC and instance count, and the scaling ratio (2 instances ÷ 1); writes
// bench/results/cluster.json. p99 with 2 instances is the worse of the two runs' p99.
// Unlike bench/scenarios.ts, which repeats each write on one row, the writes here spread over
// many customers and charges: writes to one row are serialized by its lock on any number of
// instances, so only independent rows say anything about scaling out.
// BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test) names the database; each
// instance count gets a fresh schema, dropped afterwards. The load generator, the instances and
// PostgreSQL share the machine's cores: the ratio says what a second process buys on this machine.
import autocannon from "autocannon";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { systemClock } from "../src/ports/clock.js";
import { openStorage } from "../src/storage/database.js";
import { Transactor } from "../src/storage/transactor.js";
import { seedActiveCustomer } from "../test/helpers/fixtures.js";
import { spawnServer, type ServerProcess } from "../test/helpers/process-server.js";
import { benchMerchant } from "./scenarios.js";

const root = new URL("..", import.meta.url).pathname;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const instanceCounts = [1, 2];
/** Customers (and one paid charge each) the writes and reads rotate over. */
const rowCount = 100;

/** One RPC, with the body of the n-th request. */
interface ClusterScenario {
  name: string;
  path: string;
  body(n: number): object;
}

/** A merchant with `rowCount` active customers, each charged once through the API (synchronous off-session). */
async function provision(
  url: string,
  databaseUrl: string,
): Promise<{ apiKey: string; customerIds: string[]; chargeIds: string[] }> {
  const { apiKey, merchantId } = benchMerchant(databaseUrl);
  const storage = await openStorage(databaseUrl);
  const customerIds: string[] = [];
  try {
    const seedTarget = {
      merchant: { merchant_id: merchantId },
      clock: systemClock,
      ctx: { tx: new Transactor(storage) },
    };
    for (let i = 0; i < rowCount; i++)
      customerIds.push((await seedActiveCustomer(seedTarget, { balance: 1e12 })).customerId);
  } finally {
    await storage.close();
  }
  const chargeIds: string[] = [];
  for (const customerId of customerIds) {
    const res = await fetch(`${url}/payments.v1.PaymentService/CreateOffSessionPayment`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ customerId, charge: { price: 10_000_000, description: "bench" } }),
    });
    chargeIds.push(((await res.json()) as { charge: { chargeId: string } }).charge.chargeId);
  }
  return { apiKey, customerIds, chargeIds };
}

function scenariosFor(rows: { customerIds: string[]; chargeIds: string[] }): ClusterScenario[] {
  const redirect = { successUrl: "https://shop.example.jp/thanks", failureUrl: "https://shop.example.jp/sorry" };
  return [
    {
      name: "GetCharge",
      path: "/payments.v1.PaymentService/GetCharge",
      body: (n) => ({ charge: rows.chargeIds[n % rowCount] }),
    },
    // 1-yen partial refunds over the 100 charges (settled an hour later, after the run).
    {
      name: "Refund",
      path: "/payments.v1.PaymentService/Refund",
      body: (n) => ({ chargeId: rows.chargeIds[n % rowCount], amount: 1 }),
    },
    // A new buyer each time: customer, contract, charge, link and expiry job in one write.
    {
      name: "CreateOnSessionPayment",
      path: "/payments.v1.PaymentService/CreateOnSessionPayment",
      body: (n) => ({
        buyer: { email: `bench-${n}-${Date.now()}@example.jp` },
        charge: { price: 1200, description: "bench" },
        redirect,
      }),
    },
    // Accepted over the 100 customers; the engines of all instances debit the simulated bank meanwhile.
    {
      name: "CreateOffSessionPaymentAsync",
      path: "/payments.v1.PaymentService/CreateOffSessionPaymentAsync",
      body: (n) => ({ customerId: rows.customerIds[n % rowCount], charge: { price: 1, description: "bench" } }),
    },
  ];
}

interface Measured {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** The scenario against every instance at once, the connections split between them. */
async function load(instances: ServerProcess[], scenario: ClusterScenario, apiKey: string): Promise<Measured> {
  let sent = 0;
  const runs = await Promise.all(
    instances.map((instance) =>
      autocannon({
        url: instance.url,
        connections: Math.max(1, Math.round(connections / instances.length)),
        duration: seconds,
        requests: [
          {
            method: "POST",
            path: scenario.path,
            headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
            setupRequest: (request) => ({ ...request, body: JSON.stringify(scenario.body(sent++)) }),
          },
        ],
      }),
    ),
  );
  return {
    requestsPerSecond: Math.round(runs.reduce((sum, run) => sum + run.requests.average, 0)),
    p99Ms: Math.max(...runs.map((run) => run.latency.p99)),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
  };
}

/** Every scenario against `count` instances on a fresh schema. */
async function measureWith(count: number): Promise<Map<string, Measured>> {
  const schema = `bench_cluster_${count}_${Date.now().toString(36)}`;
  const databaseUrl = `${postgresUrl}?schema=${schema}`;
  const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: "info" };
  // The first instance migrates the empty schema; the others start together after it.
  const instances = [await spawnServer(env)];
  instances.push(...(await Promise.all(Array.from({ length: count - 1 }, () => spawnServer(env)))));
  const results = new Map<string, Measured>();
  try {
    const { apiKey, ...rows } = await provision(instances[0].url, databaseUrl);
    for (const scenario of scenariosFor(rows)) results.set(scenario.name, await load(instances, scenario, apiKey));
  } finally {
    await Promise.all(instances.map((instance) => instance.kill("SIGTERM")));
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
  return results;
}

const byCount = new Map<number, Map<string, Measured>>();
for (const count of instanceCounts) byCount.set(count, await measureWith(count));

const rows = [...byCount.get(1)!.keys()].map((name) => {
  const [one, two] = instanceCounts.map((count) => byCount.get(count)!.get(name)!);
  const scaling = Number((two.requestsPerSecond / one.requestsPerSecond).toFixed(2));
  console.log(
    `${name.padEnd(30)} 1 instance ${String(one.requestsPerSecond).padStart(6)} req/s p99 ${one.p99Ms} ms   ` +
      `2 instances ${String(two.requestsPerSecond).padStart(6)} req/s p99 ${two.p99Ms} ms   scaling ×${scaling}` +
      (one.non2xx + two.non2xx + one.errors + two.errors
        ? `   non-2xx ${one.non2xx + two.non2xx}, errors ${one.errors + two.errors}`
        : ""),
  );
  return { scenario: name, oneInstance: one, twoInstances: two, scaling };
});
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(
  join(root, "bench/results/cluster.json"),
  JSON.stringify({ at: new Date().toISOString(), database: "postgres", seconds, connections, results: rows }, null, 2),
);
console.log("written bench/results/cluster.json");
