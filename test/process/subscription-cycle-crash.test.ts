import { afterAll, describe, expect, it } from "vitest";
import { openStorage, type Storage } from "../../src/storage/database.js";
import {
  advanceServerClock,
  cycleProgress,
  type DueSubscriptions,
  expectEachPeriodChargedOnce,
  seedDueSubscriptions,
  waitUntil,
} from "../helpers/due-subscriptions.js";
import { spawnServer, type ServerProcess } from "../helpers/process-server.js";
import { freshDatabaseUrl } from "../helpers/test-server.js";

/**
 * Issue 29: a kill -9 in the middle of a subscription cycle (docs/guide/recurring-billing.md#the-cycle).
 * 3,000 subscriptions fall due together (six of the cycle's transactions of 500: with two, both were
 * once committed between one look and the kill); the server process is killed once the first is
 * committed, restarted, and the cycle finishes: no period charged twice, none missing, every charge
 * debited once, reconcile clean.
 */

const count = 3_000;

describe("kill -9 during a subscription cycle", () => {
  const processes: ServerProcess[] = [];
  let storage: Storage | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterAll(async () => {
    for (const child of processes) await child.kill("SIGKILL");
    await storage?.close();
    await cleanup?.();
  });

  it("charges every period exactly once after a restart", async () => {
    const fresh = freshDatabaseUrl();
    cleanup = fresh.cleanup;
    const seeded: DueSubscriptions = await seedDueSubscriptions(fresh.url, { customers: 30, count });
    const env = { DATABASE_URL: fresh.url, SANDBOX_CLOCK: "manual", JOB_LEASE_MS: "1500", API_KEY_CACHE_MS: "600000" };
    storage = await openStorage(fresh.url);
    const first = await spawnServer(env);
    processes.push(first);
    await advanceServerClock(first.url, seeded.merchant.api_key, seeded.secondsToDue());
    // Pull the plug as soon as the cycle's first transaction is committed: the rest is still to do.
    await waitUntil(async () => (await cycleProgress(storage!)).periods > 0, "the cycle charged a page");
    await first.kill("SIGKILL");
    const atKill = await cycleProgress(storage);
    expect(atKill.periods).toBeLessThan(count);
    console.info(`subscription cycle killed with ${atKill.periods} of ${count} periods recorded`);

    const second = await spawnServer(env);
    processes.push(second);
    // A new process's manual clock starts from now again: move it past the debit date once more.
    await advanceServerClock(second.url, seeded.merchant.api_key, seeded.secondsToDue());
    await waitUntil(async () => (await cycleProgress(storage!)).settled === count, "every period's charge is settled");
    await expectEachPeriodChargedOnce(storage, fresh.url, seeded);
  }, 240_000);
});
