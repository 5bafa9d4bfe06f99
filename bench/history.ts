// History independence (`npx tsx bench/history.ts`, also part of `npm run bench`): the same call
// against a small and a large history in one furikomi process — a customer with 10 vs 100,000
// charges (and bank debits), a merchant with 10 vs 100,000 events, a charge with 1 vs 1,000
// refunds — request by request, alternating; prints the median and p90 latency of each and the
// ratio of the medians, large ÷ small (goal: within ±15 %), and as its last line one JSON object
// (bench/run.ts collects it). The large
// histories are written straight to the database (fast), the calls go through the API.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChargeStatus, DeliveryStatus, EventType, RefundStatus } from "../gen/payments/v1/enums_pb.js";
import { newId } from "../src/domain/ids.js";
import { systemClock } from "../src/ports/clock.js";
import { openStorage } from "../src/storage/database.js";
import { refundToRow } from "../src/storage/records.js";
import { Transactor, type Tx } from "../src/storage/transactor.js";
import { chargeRow } from "../test/helpers/charges.js";
import { seedActiveCustomer } from "../test/helpers/fixtures.js";
import { startFurikomi } from "./process.js";
import { benchMerchant } from "./scenarios.js";

const large = Number(process.env.BENCH_HISTORY ?? 100_000);
const largeRefunds = 1_000;
const pairs = Number(process.env.BENCH_HISTORY_PAIRS ?? 500);
const warmup = 50;
const tolerance = 0.15;

interface Side {
  apiKey: string;
  customerId: string;
  chargeId: string;
}

/** Inserts rows in batches of `size` (SQLite allows at most 32,766 parameters a statement). */
async function insertAll<T>(trx: Tx, table: "charges" | "events" | "refunds" | "bank_ledger", rows: T[], size = 500) {
  for (let i = 0; i < rows.length; i += size)
    await trx
      .insertInto(table)
      .values(rows.slice(i, i + size) as never)
      .execute();
}

/** A merchant with a customer of `charges` succeeded charges (each debited on its bank account and with an event) and a charge with `refunds` refunds. */
async function seedSide(databaseUrl: string, name: string, charges: number, refunds: number): Promise<Side> {
  const { apiKey, merchantId } = benchMerchant(databaseUrl, name);
  const storage = await openStorage(databaseUrl);
  try {
    const tx = new Transactor(storage);
    const server = { merchant: { merchant_id: merchantId }, clock: systemClock, ctx: { tx } };
    const { customerId } = await seedActiveCustomer(server, { balance: 1e12 });
    const now = systemClock.now();
    const chargeRows = Array.from({ length: charges }, () =>
      chargeRow({ merchantId, customerId, status: ChargeStatus.SUCCESS, amount: 1200 }, now),
    );
    const refunded = chargeRow({ merchantId, customerId, status: ChargeStatus.SUCCESS, amount: 10_000_000 }, now);
    const at = now.toISOString();
    await tx.write(async (trx) => {
      await insertAll(trx, "charges", [...chargeRows, refunded]);
      await insertAll(
        trx,
        "bank_ledger",
        chargeRows.map((row, i) => ({
          customer_id: customerId,
          reference: row.id,
          amount: -row.amount,
          balance_after: 1e12 - (i + 1) * row.amount,
          at,
        })),
      );
      await insertAll(
        trx,
        "events",
        chargeRows.map((row) => ({
          id: newId("mwh"),
          merchant_id: merchantId,
          event_type: EventType.CHARGE_SUCCESS,
          event_type_name: "charge.success",
          charge_id: row.id,
          content_json: "{}",
          created_at: at,
          delivery_status: DeliveryStatus.DELIVERED,
          attempt_count: 1,
          next_attempt_at: at,
          lease_until: null,
          delivered_at: at,
        })),
      );
      await insertAll(
        trx,
        "refunds",
        Array.from({ length: refunds }, (_, i) => ({
          seq: i + 1,
          ...refundToRow({
            id: newId("rfd"),
            merchantId,
            chargeId: refunded.id,
            amount: 1,
            status: RefundStatus.SUCCEEDED,
            cancellation: false,
            reason: "",
            metadata: {},
            errorMessage: "",
            settleAfter: now,
            createdAt: now,
            updatedAt: now,
          }),
        })),
      );
      await trx.updateTable("charges").set({ refunded_amount: refunds }).where("id", "=", refunded.id).execute();
    });
    return { apiKey, customerId, chargeId: refunded.id };
  } finally {
    await storage.close();
  }
}

const calls: Array<{ name: string; path: string; body: (side: Side) => object }> = [
  { name: "GetCharge", path: "GetCharge", body: (side) => ({ charge: side.chargeId }) },
  { name: "GetCustomer", path: "GetCustomer", body: (side) => ({ customer: side.customerId }) },
  { name: "ListEvents", path: "ListEvents", body: () => ({ pageSize: 20 }) },
  {
    name: "off-session debit",
    path: "CreateOffSessionPayment",
    body: (side) => ({ customerId: side.customerId, charge: { price: 1, description: "bench" } }),
  },
  { name: "partial refund", path: "Refund", body: (side) => ({ chargeId: side.chargeId, amount: 1 }) },
];

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];

/** One call's latency in milliseconds (one request at a time, over a kept-alive connection). */
async function timed(url: string, apiKey: string, path: string, body: object): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${url}/payments.v1.PaymentService/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return performance.now() - start;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "furikomi-history-"));
  const databaseUrl = `file:${join(dir, "bench.db")}`;
  const seedStart = Date.now();
  const small = await seedSide(databaseUrl, "Small History Shop", 10, 1);
  const big = await seedSide(databaseUrl, "Large History Shop", large, largeRefunds);
  const seedSeconds = (Date.now() - seedStart) / 1000;
  console.log(`seeded ${large} charges, debits and events and ${largeRefunds} refunds in ${seedSeconds} s`);
  const furikomi = await startFurikomi({
    MODE: "sandbox",
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    DATABASE_URL: databaseUrl,
  });
  const results: object[] = [];
  try {
    for (const call of calls) {
      // Small and large alternate request by request, so a change in the machine's load (it is
      // shared) falls on both alike; the first pairs warm up and are not counted.
      const latencies = { small: [] as number[], large: [] as number[] };
      for (let i = 0; i < warmup + pairs; i++) {
        const pair = [
          await timed(furikomi.url, small.apiKey, call.path, call.body(small)),
          await timed(furikomi.url, big.apiKey, call.path, call.body(big)),
        ];
        if (i < warmup) continue;
        latencies.small.push(pair[0]);
        latencies.large.push(pair[1]);
      }
      const row = {
        call: call.name,
        smallMedianMs: round(quantile(latencies.small, 0.5)),
        largeMedianMs: round(quantile(latencies.large, 0.5)),
        smallP90Ms: round(quantile(latencies.small, 0.9)),
        largeP90Ms: round(quantile(latencies.large, 0.9)),
        ratio: round(quantile(latencies.large, 0.5) / quantile(latencies.small, 0.5)),
        goal: `1 ± ${tolerance}`,
        goalMet: false,
      };
      row.goalMet = Math.abs(row.ratio - 1) <= tolerance;
      results.push(row);
      console.log(
        `${call.name.padEnd(20)} median ${row.smallMedianMs} ms small, ${row.largeMedianMs} ms large (p90 ${row.smallP90Ms} / ${row.largeP90Ms} ms)  ` +
          `ratio ${row.ratio} (goal 1 ± ${tolerance})${row.goalMet ? "" : "  NOT MET"}`,
      );
    }
  } finally {
    furikomi.child.kill("SIGTERM");
  }
  console.log(JSON.stringify({ largeHistory: large, largeRefunds, pairs, seedSeconds, results }));
}

const round = (value: number) => Math.round(value * 100) / 100;

await main();
