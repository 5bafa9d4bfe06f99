import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { startTestServer, testDialect, type TestServer } from "../helpers/test-server.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { expectEverything } from "./model/api-checks.js";
import { SyncCharge } from "./model/charge-commands.js";
import { commands } from "./model/commands.js";
import { newAccount, newModel } from "./model/model-state.js";
import { realSystemFor, tally } from "./model/real-system.js";

/**
 * Random sequences of API calls, bank failures and clock moves against an in-memory model
 * (model/): after every command each status the API reports matches the model, and for
 * every customer the bank's ledger equals what was charged minus what was refunded, and
 * `furikomi reconcile` finds no broken money invariant in the database.
 */
const sequences = Number(process.env.MODEL_SEQUENCES ?? (testDialect === "postgres" ? 40 : 200));
/** Independent servers (each with its own clock), so one sequence's fsyncs overlap another's work. */
const lanes = 4;
const firstPrice = 1_000;

/** The model checks logic, the crash loop durability: the SQLite files may live in memory (tmpfs), where fsync is free. */
const sqliteDir = existsSync("/dev/shm") ? "/dev/shm" : undefined;

let servers: TestServer[] = [];
beforeAll(async () => {
  // Workers off: the test drains the job queue itself after moving the clock, as the model does.
  // Sign-in limit off: every sequence signs a dashboard user in from 127.0.0.1, far past 30 a minute.
  const options = {
    env: { WORKERS: "off", SIGN_IN_RATE_LIMIT_PER_ADDRESS: "0" },
    clockStart: new Date("2026-03-02T00:30:00Z"),
    sqliteDir,
  };
  servers = await Promise.all(Array.from({ length: lanes }, () => startTestServer(options)));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function runLane(server: TestServer, runs: number, seed: number): Promise<number> {
  let ran = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 0, max: 6_000 }), { minLength: 1, maxLength: 3 }),
      fc.commands(commands, { maxCommands: 10, size: "+1" }),
      async (balances, sequence) => {
        ran++;
        const real = await realSystemFor(server);
        const model = newModel(server.clock.now().getTime());
        // Starting customers are written straight to the database; AddCustomer makes more through the API.
        for (const balance of balances) {
          const { customerId, contractId } = await seedActiveCustomer(server, { merchantId: real.merchantId, balance });
          const email = `${customerId}@example.jp`;
          model.customers.push({ id: customerId, email, contractId, active: true, account: newAccount(balance) });
        }
        // Each starting customer has paid once (synchronously), so refunds have something to refund.
        for (let i = 0; i < balances.length; i++) await new SyncCharge(i, firstPrice).run(model, real);
        await fc.asyncModelRun(() => ({ model, real }), sequence);
        await expectEverything(real, model);
        await expectReconciled(server);
      },
    ),
    { numRuns: runs, seed, endOnFailure: false },
  );
  return ran;
}

describe("model-based: customers, contracts, charges, refunds and async requests", () => {
  it(`matches the model over ${sequences} random sequences`, async () => {
    const seed = Number(process.env.MODEL_SEED ?? Date.now() % 1_000_000);
    const perLane = Math.ceil(sequences / lanes);
    const ran = await Promise.all(servers.map((server, lane) => runLane(server, perLane, seed + lane)));
    const total = ran.reduce((a, b) => a + b, 0);
    console.log(
      `model-based: ${total} sequences (seed ${seed}), commands: ${JSON.stringify(Object.fromEntries(tally))}`,
    );
    expect(total).toBeGreaterThanOrEqual(sequences);
  }, 300_000);
});
