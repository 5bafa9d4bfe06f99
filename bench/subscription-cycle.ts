// npx tsx bench/subscription-cycle.ts: one debit date of 100,000 subscriptions (BENCH_SUBSCRIPTIONS).
// Starts the service (BANK_CONNECTOR=zengin, workers off, manual clock) on a fresh SQLite file
// (BENCH_DATABASE_URL=postgres://… for PostgreSQL), seeds (bench/debit-date-seed.ts) one merchant
// with a consignor contract, 1,000 customers (BENCH_CUSTOMERS) with active contracts and the subscriptions spread
// over them, all due on one debit date, then times one turn of the file cycle at that date's cutoff: every period's charge
// created (docs/guide/recurring-billing.md#the-cycle) and the request file written. Goal ≤ 10 s,
// memory flat (peak resident size after seeding against after the cycle). Prints one JSON object:
//   {scenario, database, subscriptions, chargeSeconds, chargeCpuSeconds, fileSeconds, fileCpuSeconds, charges,
//    fileRecords, peakRssMiB: {seeded, cycled}}. The charges are created (chargeDueSubscriptions, the file
//    cycle's first step) and then the rest of the turn writes the file; both are timed.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { limits } from "../src/domain/limits.js";
import { decodeDebitFile } from "../src/domain/zengin-debit-file.js";
import { runZenginCycle } from "../src/flows/zengin-cycle.js";
import { chargeDueSubscriptions } from "../src/flows/subscription-cycle.js";
import { zenginExchangeOf } from "../src/flows/zengin-exchange.js";
import { cutoff, seedDebitDate } from "./debit-date-seed.js";
import { peakRssMiB, timed } from "./phase-timing.js";
import { startZenginService } from "./zengin-service.js";

const subscriptions = Number(process.env.BENCH_SUBSCRIPTIONS ?? 100_000);
// BENCH_CUSTOMERS: one subscription per customer as the debit day seeds (`= BENCH_SUBSCRIPTIONS`), or fewer.
const customers = Number(process.env.BENCH_CUSTOMERS ?? Math.min(1000, subscriptions));
const dir = mkdtempSync(join(tmpdir(), "furikomi-bench-subscriptions-"));
const { service, clock } = await startZenginService(dir, process.env.BENCH_DATABASE_URL);
try {
  await seedDebitDate(service.ctx, { customers, subscriptions });
  const exchange = zenginExchangeOf(service.ctx, (file) => console.error(`quarantined: ${file.reason}`));
  clock.advance(cutoff.getTime() - clock.now().getTime());
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
  // A file holds at most limits.zenginFileRecordsMax records; the rest wait for the next date.
  const filed = Math.min(subscriptions, limits.zenginFileRecordsMax);
  if (Number(charges.n) !== subscriptions || decoded.file.records.length !== filed)
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
