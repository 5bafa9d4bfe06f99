// History independence (`npx tsx bench/history.ts`, also part of `npm run bench`): the same call
// against a small and a large history in one furikomi process — a customer with 10 vs 100,000
// charges (and bank debits), a merchant with 10 vs 100,000 events, a charge with 1 vs 1,000
// refunds — in alternating rounds; prints requests/s and p99 of each and the ratio large ÷ small
// (goal: within ±15 %), and as its last line one JSON object (bench/run.ts collects it). The large
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
import { load, startProcess } from "./process.js";
import { benchMerchant } from "./scenarios.js";

const large = Number(process.env.BENCH_HISTORY ?? 100_000);
const largeRefunds = 1_000;
const roundSeconds = Number(process.env.BENCH_HISTORY_SECONDS ?? 3);
const rounds = 3;
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
        Array.from({ length: refunds }, () =>
          refundToRow({
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
        ),
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "furikomi-history-"));
  const databaseUrl = `file:${join(dir, "bench.db")}`;
  const seedStart = Date.now();
  const small = await seedSide(databaseUrl, "Small History Shop", 10, 1);
  const big = await seedSide(databaseUrl, "Large History Shop", large, largeRefunds);
  const seedSeconds = (Date.now() - seedStart) / 1000;
  console.log(`seeded ${large} charges, debits and events and ${largeRefunds} refunds in ${seedSeconds} s`);
  const furikomi = await startProcess(
    ["src/main.ts"],
    { MODE: "sandbox", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", DATABASE_URL: databaseUrl },
    "furikomi listening",
  );
  const results: object[] = [];
  try {
    for (const call of calls) {
      const measured = {
        small: [] as number[],
        large: [] as number[],
        smallP99: [] as number[],
        largeP99: [] as number[],
      };
      for (let round = 0; round < rounds; round++) {
        for (const [label, side] of [
          ["small", small],
          ["large", big],
        ] as const) {
          const figures = await load(
            furikomi.url,
            {
              path: `/payments.v1.PaymentService/${call.path}`,
              body: JSON.stringify(call.body(side)),
              headers: { "content-type": "application/json", authorization: `Bearer ${side.apiKey}` },
            },
            roundSeconds,
          );
          if (figures.non2xx || figures.errors || figures.requestsPerSecond === 0)
            throw new Error(`${call.name} (${label}): ${JSON.stringify(figures)}`);
          measured[label].push(figures.requestsPerSecond);
          measured[`${label}P99`].push(figures.p99Ms);
        }
      }
      const smallRps = median(measured.small);
      const largeRps = median(measured.large);
      const ratio = Number((largeRps / smallRps).toFixed(2));
      const row = {
        call: call.name,
        smallRequestsPerSecond: smallRps,
        largeRequestsPerSecond: largeRps,
        smallP99Ms: median(measured.smallP99),
        largeP99Ms: median(measured.largeP99),
        ratio,
        goalMet: Math.abs(ratio - 1) <= tolerance,
      };
      results.push(row);
      console.log(
        `${call.name.padEnd(20)} small ${smallRps} req/s (p99 ${row.smallP99Ms} ms)  large ${largeRps} req/s (p99 ${row.largeP99Ms} ms)  ` +
          `ratio ${ratio} (goal 1 ± ${tolerance})`,
      );
    }
  } finally {
    furikomi.child.kill("SIGTERM");
  }
  console.log(JSON.stringify({ largeHistory: large, largeRefunds, roundSeconds, rounds, seedSeconds, results }));
}

await main();
