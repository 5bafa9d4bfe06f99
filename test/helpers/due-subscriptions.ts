import pino from "pino";
import { expect } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { loadConfig } from "../../src/config.js";
import { startService } from "../../src/composition-root.js";
import { defaultDunning } from "../../src/domain/dunning.js";
import { jstDateOf, jstInstant } from "../../src/domain/jst.js";
import { addMonths, periodOfDate } from "../../src/domain/billing-period.js";
import { createMerchant, type CreatedMerchant } from "../../src/flows/merchants.js";
import { createPlan } from "../../src/flows/plans.js";
import { createSubscription } from "../../src/flows/subscriptions.js";
import { ManualClock } from "../../src/ports/clock.js";
import type { Storage } from "../../src/storage/database.js";
import { seedActiveCustomer } from "./fixtures.js";
import { expectDatabaseReconciled } from "./reconcile.js";

/** Subscriptions all due on one debit date, written before any server process runs. */
export interface DueSubscriptions {
  merchant: CreatedMerchant;
  /** Their one debit date (JST) and the seconds a manual clock must move from now to be past its 00:00 JST. */
  debitDate: string;
  secondsToDue(): number;
  count: number;
}

/**
 * `count` subscriptions (spread over `customers` customers with active contracts) to a monthly plan
 * debited on the 27th, all starting next month: due together at 00:00 JST of one debit date, which a
 * SANDBOX_CLOCK=manual server reaches by AdvanceClock. Made through the flows, on the real clock.
 */
export async function seedDueSubscriptions(
  databaseUrl: string,
  options: { customers: number; count: number },
): Promise<DueSubscriptions> {
  const clock = new ManualClock();
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    WORKERS: "off",
    LOG_LEVEL: "silent",
  });
  const service = await startService(config, { clock, logger: pino({ level: "silent" }) });
  try {
    const created = await createMerchant(service.ctx, { name: "Cycle Shop" });
    const merchant = { id: created.merchant_id, name: created.name };
    const plan = await createPlan(service.ctx, merchant, {
      name: "月額",
      amount: 1000,
      intervalUnit: "month",
      intervalCount: 1,
      debitDay: 27,
      firstPeriod: "full",
      discount: null,
      dunning: defaultDunning,
      noticeDays: 0,
      metadata: {},
    });
    const customerIds: string[] = [];
    for (let i = 0; i < options.customers; i++)
      customerIds.push(
        (await seedActiveCustomer({ merchant: created, clock, ctx: service.ctx }, { balance: 10_000_000 })).customerId,
      );
    const startPeriod = addMonths(periodOfDate(jstDateOf(clock.now())), 1);
    let debitDate = "";
    for (let i = 0; i < options.count; i += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, options.count - i) }, async (_, j) => {
          const subscription = await createSubscription(service.ctx, merchant, {
            customerId: customerIds[(i + j) % customerIds.length],
            planId: plan.id,
            amount: 0,
            startPeriod,
            endPeriod: "",
            description: "",
            metadata: {},
          });
          debitDate = subscription.nextDebitDate!;
        }),
      );
    const dueAt = jstInstant(debitDate, "01:00").getTime();
    return {
      merchant: created,
      debitDate,
      secondsToDue: () => Math.ceil((dueAt - Date.now()) / 1000),
      count: options.count,
    };
  } finally {
    await service.close();
  }
}

/** Moves a SANDBOX_CLOCK=manual server process's clock past the debit date (its offset starts at 0 on each start). */
export async function advanceServerClock(url: string, apiKey: string, seconds: number): Promise<void> {
  const res = await fetch(`${url}/v1/sandbox/clock/advance`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ seconds }),
  });
  expect(res.status).toBe(200);
}

/** How many of the periods are recorded, and how many of their charges are settled. */
export async function cycleProgress(storage: Storage): Promise<{ periods: number; settled: number }> {
  const periods = await storage.db.selectFrom("subscription_periods").select("charge_id").execute();
  const settled = await storage.db
    .selectFrom("charges")
    .select("id")
    .where("status", "in", [ChargeStatus.SUCCESS, ChargeStatus.FAILURE])
    .execute();
  return { periods: periods.length, settled: settled.length };
}

/**
 * After the cycle: every subscription charged exactly once for its period (one period row and
 * one charge each, the charge the period's, debited once on the bank's ledger), each moved on to
 * the next period, and reconcile finds nothing.
 */
export async function expectEachPeriodChargedOnce(
  storage: Storage,
  databaseUrl: string,
  seeded: DueSubscriptions,
): Promise<void> {
  const db = storage.db;
  const periods = await db.selectFrom("subscription_periods").select(["subscription_id", "charge_id"]).execute();
  expect(periods.length).toBe(seeded.count);
  expect(new Set(periods.map((p) => p.subscription_id)).size).toBe(seeded.count);
  const charges = await db.selectFrom("charges").select(["id", "status", "metadata_json"]).execute();
  expect(charges.length).toBe(seeded.count);
  expect(new Set(charges.map((c) => c.id))).toEqual(new Set(periods.map((p) => p.charge_id)));
  expect(charges.every((c) => c.status === ChargeStatus.SUCCESS)).toBe(true);
  const ledger = await db.selectFrom("bank_ledger").select("reference").execute();
  expect(ledger.map((row) => row.reference).sort()).toEqual(charges.map((c) => c.id).sort());
  const moved = await db.selectFrom("subscriptions").select("next_debit_date").distinct().execute();
  expect(moved.map((row) => row.next_debit_date)).not.toContain(seeded.debitDate);
  await expectDatabaseReconciled(databaseUrl);
}

export async function waitUntil(condition: () => Promise<boolean>, what: string, timeoutMs = 150_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
