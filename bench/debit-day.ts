// npx tsx bench/debit-day.ts (`npm run bench -- --debit-day [N]`): one merchant's debit day of
// BENCH_DEBIT_DAY (100,000) subscriptions, one per customer, end to end under BANK_CONNECTOR=zengin
// (docs/operations/benchmark.md#debit-day). On a fresh SQLite file, or BENCH_DATABASE_URL
// (postgres://…; without `?schema=` the bench makes a fresh schema and drops it afterwards). Phases:
//   seed     the merchant (consignor, webhook endpoint on a loopback receiver that answers 200 at
//            once), customers with active contracts and accounts, their subscriptions (not timed
//            toward a goal);
//   charge   the file cycle at the cutoff charges the date (chargeDueSubscriptions), then
//   file     the rest of that turn writes the request file;
//   import   the bank's answer made from the request's bytes (every 10th record 資金不足), put in
//            incoming/ and imported by the next turn;
//   webhooks the service's workers started as `startService` starts them, until the receiver has
//            every event the merchant's events table holds: the delivery rate.
// Each phase: wall and CPU seconds (this process: on PostgreSQL the database's own CPU is not in
// it) and the peak resident size after it. Fails unless every subscription was charged once and
// filed, every result applied, every event delivered and reconcile finds nothing. Prints one JSON
// object; goals: charge + file ≤ 10 s, import ≤ 10 s, webhooks ≥ 500 events/s.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { ChargeStatus } from "../gen/payments/v1/enums_pb.js";
import { limits } from "../src/domain/limits.js";
import { decodeDebitFile } from "../src/domain/zengin-debit-file.js";
import { reconcile } from "../src/flows/reconcile.js";
import { chargeDueSubscriptions } from "../src/flows/subscription-cycle.js";
import { runZenginCycle } from "../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../src/flows/zengin-exchange.js";
import { postgresTarget } from "../src/storage/database.js";
import { cutoff, seedDebitDate } from "./debit-date-seed.js";
import { startLoopbackReceiver } from "./loopback-receiver.js";
import { peakRssMiB, timed } from "./phase-timing.js";
import { writeAnswer } from "./zengin-answer.js";
import { startZenginService } from "./zengin-service.js";

const goals = { chargeAndFileSeconds: 10, importSeconds: 10, webhookEventsPerSecond: 500 };

const subscriptions = Number(process.env.BENCH_DEBIT_DAY ?? 100_000);
/** Delivery is given up as stuck when no event arrives for this long. */
const stallMs = 60_000;
const dir = mkdtempSync(join(tmpdir(), "furikomi-bench-debit-day-"));
const database = benchDatabase(process.env.BENCH_DATABASE_URL);
const receiver = await startLoopbackReceiver();
const { service, clock } = await startZenginService(dir, database.url);
const { ctx } = service;
try {
  const seed = await phase("seed", () =>
    seedDebitDate(ctx, { customers: subscriptions, subscriptions, webhookUrl: receiver.url }),
  );
  const { merchantId } = seed.result;
  const exchange = zenginExchangeOf(ctx, (file) => console.error(`quarantined: ${file.reason}`));
  clock.advance(cutoff.getTime() - clock.now().getTime());
  const charge = await phase("charge", () => chargeDueSubscriptions(ctx));
  const file = await phase("file", () => runZenginCycle(ctx, exchange));
  const name = file.result.written[0];
  const fileRecords = recordsIn(join(dir, "zengin", "outgoing", name));
  mustBe("charges", charge.result.charged, subscriptions);
  // A file holds at most limits.zenginFileRecordsMax records; the rest wait for the next date.
  mustBe("records in the request file", fileRecords, Math.min(subscriptions, limits.zenginFileRecordsMax));
  writeAnswer(join(dir, "zengin", "outgoing", name), join(dir, "zengin", "incoming", `R${name.slice(1)}`));
  // The day after the debit date, 15:00 JST: the bank has answered.
  clock.advance(2 * 86_400_000);
  const importing = await phase("import", () => runZenginCycle(ctx, exchange));
  mustBe("result files imported", importing.result.imported.length, 1);
  const byStatus = await chargesByStatus();
  const failed = Math.ceil(fileRecords / 10);
  mustBe("charges succeeded", byStatus[ChargeStatus.SUCCESS], fileRecords - failed);
  mustBe("charges failed", byStatus[ChargeStatus.FAILURE], failed);
  const webhooks = await phase("webhooks", async () => {
    service.jobs.start();
    service.webhooks.start();
    ctx.wake("events");
    return deliverAll(merchantId);
  });
  const checked = await phase("reconcile", () => reconcile(ctx));
  mustBe("reconcile's violations", JSON.stringify(checked.result.slice(0, 5)), "[]");
  const { events, byType } = webhooks.result;
  console.log(
    JSON.stringify({
      scenario: `debit-day-${subscriptions}`,
      database: ctx.tx.dialect,
      subscriptions,
      seed: figures(seed),
      charge: figures(charge),
      file: figures(file),
      import: figures(importing),
      webhooks: { ...figures(webhooks), events, eventsPerSecond: Math.round(events / webhooks.seconds) },
      eventsByType: byType,
      fileRecords,
      reconcileSeconds: checked.seconds,
      goals,
    }),
  );
} finally {
  await service.close();
  await receiver.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}

/** Fails the run loudly when a count is not what the debit day must come to. */
function mustBe<T>(what: string, actual: T, expected: T): void {
  if (actual !== expected) throw new Error(`debit day of ${subscriptions}: ${what} ${actual}, expected ${expected}`);
}

/** A phase's wall and CPU seconds and the peak resident size once it is over (on stderr as it ends). */
async function phase<T>(name: string, work: () => Promise<T>) {
  const measured = { ...(await timed(work)), peakRssMiB: peakRssMiB() };
  console.error(`debit day: ${name} ${JSON.stringify(figures(measured))}`);
  return measured;
}

function figures(measured: { seconds: number; cpuSeconds: number; peakRssMiB: number }) {
  return { seconds: measured.seconds, cpuSeconds: measured.cpuSeconds, peakRssMiB: measured.peakRssMiB };
}

/**
 * Waits until the receiver has every event the merchant's events table holds (again, should the
 * workers have recorded more meanwhile); fails when deliveries stop coming.
 */
async function deliverAll(merchantId: string): Promise<{ events: number; byType: Record<string, number> }> {
  const ofMerchant = ctx.tx.db.selectFrom("events").where("merchant_id", "=", merchantId);
  for (;;) {
    const events = await ofMerchant.select(["id", "event_type_name"]).execute();
    await arrivedOrStalled(events.length);
    const missing = events.filter((event) => !receiver.arrivals.has(event.id));
    if (missing.length > 0) throw new Error(`${missing.length} events never delivered, e.g. ${missing[0].id}`);
    const now = await ofMerchant.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    if (Number(now.n) > events.length) continue;
    const byType: Record<string, number> = {};
    for (const event of events) byType[event.event_type_name] = (byType[event.event_type_name] ?? 0) + 1;
    return { events: events.length, byType };
  }
}

function arrivedOrStalled(count: number): Promise<void> {
  let seen = receiver.arrivals.size;
  let watchdog: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    watchdog = setInterval(() => {
      if (receiver.arrivals.size === seen)
        reject(new Error(`webhooks stalled at ${seen} of ${count} events delivered`));
      seen = receiver.arrivals.size;
    }, stallMs);
  });
  return Promise.race([receiver.until(() => receiver.arrivals.size >= count), stalled]).finally(() =>
    clearInterval(watchdog),
  );
}

async function chargesByStatus(): Promise<Record<number, number>> {
  const rows = await ctx.tx.db
    .selectFrom("charges")
    .select((eb) => ["status", eb.fn.countAll<number>().as("n")])
    .groupBy("status")
    .execute();
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
}

function recordsIn(path: string): number {
  const decoded = decodeDebitFile(readFileSync(path), false);
  if (!decoded.ok) throw new Error(`request file: ${decoded.reason}`);
  return decoded.file.records.length;
}

/** BENCH_DATABASE_URL as given, a fresh schema on PostgreSQL when it names none, or a SQLite file. */
function benchDatabase(url: string | undefined): { url: string; drop(): Promise<void> } {
  if (!url) return { url: `file:${join(dir, "bench.db")}`, drop: async () => {} };
  if (!url.startsWith("postgres") || postgresTarget(url).schema) return { url, drop: async () => {} };
  const schema = `bench_debit_day_${Date.now().toString(36)}`;
  return {
    url: `${url}${url.includes("?") ? "&" : "?"}schema=${schema}`,
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}
