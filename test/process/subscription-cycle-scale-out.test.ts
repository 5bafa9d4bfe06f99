import { afterAll, describe, expect, it } from "vitest";
import { openStorage, type Storage } from "../../src/storage/database.js";
import {
  advanceServerClock,
  cycleProgress,
  expectEachPeriodChargedOnce,
  seedDueSubscriptions,
  waitUntil,
} from "../helpers/due-subscriptions.js";
import { spawnServer, type ServerProcess } from "../helpers/process-server.js";
import { freshDatabaseUrl } from "../helpers/test-server.js";

/**
 * Issue 29: two instances on one PostgreSQL schema (vitest.config.ts runs this file in the
 * PostgreSQL pass only) run the same subscription cycle at once (docs/guide/recurring-billing.md#the-cycle):
 * their clocks reach the debit date together, both may charge pages of the due subscriptions
 * (the cycle job's lease can lapse during its run), and still every period has exactly one charge,
 * debited once.
 */

const count = 600;

describe("two instances running the same subscription cycle", () => {
  const processes: ServerProcess[] = [];
  let storage: Storage | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterAll(async () => {
    for (const child of processes) await child.kill("SIGKILL");
    await storage?.close();
    await cleanup?.();
  });

  it("charges each period once", async () => {
    const fresh = freshDatabaseUrl("postgres");
    cleanup = fresh.cleanup;
    const seeded = await seedDueSubscriptions(fresh.url, { customers: 30, count });
    // The cycle is one leased job: a lease shorter than its run (seconds for 1,000 subscriptions)
    // lets the other instance take it over while the first still runs it; long enough for a debit
    // job not to be taken over again and again.
    const env = { DATABASE_URL: fresh.url, SANDBOX_CLOCK: "manual", JOB_LEASE_MS: "2000", API_KEY_CACHE_MS: "600000" };
    storage = await openStorage(fresh.url);
    const instances = await Promise.all([spawnServer(env), spawnServer(env)]);
    processes.push(...instances);
    await Promise.all(
      instances.map((instance) => advanceServerClock(instance.url, seeded.merchant.api_key, seeded.secondsToDue())),
    );
    await waitUntil(async () => (await cycleProgress(storage!)).settled === count, "every period's charge is settled");
    await expectEachPeriodChargedOnce(storage, fresh.url, seeded);
    expect((await cycleProgress(storage)).periods).toBe(count);
  }, 240_000);
});
