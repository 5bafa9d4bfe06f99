// npx tsx bench/subscription-cycle.ts: one debit date of 100,000 subscriptions (BENCH_SUBSCRIPTIONS).
// Starts the service (BANK_CONNECTOR=zengin, workers off, manual clock) on a fresh SQLite file
// (BENCH_DATABASE_URL=postgres://… for PostgreSQL), seeds one merchant with a consignor contract,
// 1,000 customers with active contracts and the subscriptions spread over them, all due on one
// debit date, then times one turn of the file cycle at that date's cutoff: every period's charge
// created (docs/guide/recurring-billing.md#the-cycle) and the request file written. Goal ≤ 10 s,
// memory flat (peak resident size after seeding against after the cycle). Prints one JSON object:
//   {scenario, database, subscriptions, chargeSeconds, chargeCpuSeconds, fileSeconds, fileCpuSeconds, charges,
//    fileRecords, peakRssMiB: {seeded, cycled}}. The charges are created (chargeDueSubscriptions, the file
//    cycle's first step) and then the rest of the turn writes the file; both are timed.
import { defaultDunning } from "../src/domain/dunning.js";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { loadConfig } from "../src/config.js";
import { decodeDebitFile } from "../src/domain/zengin-debit-file.js";
import { startService } from "../src/composition-root.js";
import { createMerchant, updateConsignor } from "../src/flows/merchants.js";
import { createPlan } from "../src/flows/plans.js";
import { runZenginCycle } from "../src/flows/zengin-cycle.js";
import { chargeDueSubscriptions } from "../src/flows/subscription-cycle.js";
import { zenginExchangeOf } from "../src/flows/zengin-exchange.js";
import { ManualClock } from "../src/ports/clock.js";
import { seedActiveCustomer } from "../test/helpers/fixtures.js";
import { peakRssMiB, timed } from "./phase-timing.js";

const subscriptions = Number(process.env.BENCH_SUBSCRIPTIONS ?? 100_000);
const customers = Math.min(1000, subscriptions);
const dir = mkdtempSync(join(tmpdir(), "furikomi-bench-subscriptions-"));
const databaseUrl = process.env.BENCH_DATABASE_URL ?? `file:${join(dir, "bench.db")}`;
const config = loadConfig({
  ...process.env,
  MODE: "sandbox",
  PORT: "0",
  HOST: "127.0.0.1",
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: "silent",
  WORKERS: "off",
  BANK_CONNECTOR: "zengin",
  ZENGIN_DIR: join(dir, "zengin"),
  ZENGIN_SIMULATED_BANK: "off",
});
// Tuesday 2026-11-24 10:00 JST; the debit date is Friday 27th, its cutoff Thursday 15:00 JST.
const clock = new ManualClock(new Date("2026-11-24T01:00:00Z"));
const service = await startService(config, { clock, logger: pino({ level: "silent" }) });
try {
  const created = await createMerchant(service.ctx, { name: "Bench Shop" });
  const merchant = { id: created.merchant_id, name: "Bench Shop" };
  await updateConsignor(service.ctx, merchant.id, {
    code: "9234567891",
    name: "ﾍﾞﾝﾁ",
    bankCode: "0001",
    branchCode: "001",
    accountType: "1",
    accountNumber: "1234567",
  });
  const plan = await createPlan(service.ctx, merchant, {
    name: "月額",
    amount: 3300,
    intervalUnit: "month",
    intervalCount: 1,
    dunning: defaultDunning,
    noticeDays: 0,
    debitDay: 27,
    firstPeriod: "full",
    discount: null,
    metadata: {},
  });
  const seeded: { customerId: string; contractId: string }[] = [];
  for (let i = 0; i < customers; i++)
    seeded.push(
      await seedActiveCustomer(
        { merchant: created, clock, ctx: service.ctx },
        { accountNumber: String(1_000_000 + i), bankCode: "0005" },
      ),
    );
  const now = clock.now().toISOString();
  for (let start = 0; start < subscriptions; start += 500)
    await service.ctx.tx.write(async (trx) => {
      const rows = [];
      for (let i = start; i < Math.min(start + 500, subscriptions); i++) {
        const customer = seeded[i % customers];
        rows.push({
          id: `sub-bench${String(i).padStart(8, "0")}`,
          merchant_id: merchant.id,
          customer_id: customer.customerId,
          contract_id: customer.contractId,
          plan_id: plan.id,
          amount: null,
          start_period: "2026-11",
          end_period: null,
          status: "active",
          cancel_at_period_end: 0,
          end_reason: null,
          next_period: "2026-11",
          next_debit_date: "2026-11-27",
          last_period: null,
          description: "月額",
          metadata_json: "{}",
          created_at: now,
          updated_at: now,
          ended_at: null,
          carry_json: "[]",
        });
      }
      for (let at = 0; at < rows.length; at += 100)
        await trx
          .insertInto("subscriptions")
          .values(rows.slice(at, at + 100))
          .execute();
    });
  const exchange = zenginExchangeOf(service.ctx, (file) => console.error(`quarantined: ${file.reason}`));
  clock.advance(Date.parse("2026-11-26T06:00:00Z") - clock.now().getTime());
  const seededRss = peakRssMiB();
  const charging = await timed(() => chargeDueSubscriptions(service.ctx));
  const cycle = await timed(() => runZenginCycle(service.ctx, exchange));
  const cycledRss = peakRssMiB();
  const charges = await service.ctx.tx.db
    .selectFrom("subscription_attempts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const decoded = decodeDebitFile(readFileSync(join(dir, "zengin", "outgoing", cycle.result.written[0])), false);
  if (!decoded.ok) throw new Error(decoded.reason);
  if (Number(charges.n) !== subscriptions || decoded.file.records.length !== subscriptions)
    throw new Error(`${charges.n} charges, ${decoded.file.records.length} records for ${subscriptions} subscriptions`);
  console.log(
    JSON.stringify({
      scenario: `subscriptions-${subscriptions}`,
      database: service.ctx.tx.dialect,
      subscriptions,
      // The charges (the file cycle's first step, timed alone), then the rest of the turn: the file.
      chargeSeconds: charging.seconds,
      chargeCpuSeconds: charging.cpuSeconds,
      fileSeconds: cycle.seconds,
      fileCpuSeconds: cycle.cpuSeconds,
      charges: Number(charges.n),
      fileRecords: decoded.file.records.length,
      peakRssMiB: { seeded: seededRss, cycled: cycledRss },
      goalSeconds: 10,
    }),
  );
} finally {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
}
