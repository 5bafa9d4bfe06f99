import { afterAll, describe, expect, it } from "vitest";
import pino from "pino";
import { AsyncStatus, ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { loadConfig } from "../../src/config.js";
import { createMerchant, type CreatedMerchant } from "../../src/flows/merchants.js";
import { ManualClock } from "../../src/ports/clock.js";
import { startService } from "../../src/composition-root.js";
import { openStorage, type Storage } from "../../src/storage/database.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { spawnServer, type ServerProcess } from "../helpers/process-server.js";
import { freshDatabaseUrl } from "../helpers/test-server.js";
import { expectDatabaseReconciled } from "../helpers/reconcile.js";

const requestCount = 500;
const customerCount = 50;
const price = 100;
const openingBalance = 100_000;

/** Customers with active contracts and slow simulated accounts, written before any server process runs. */
async function provision(databaseUrl: string): Promise<{ merchant: CreatedMerchant; customerIds: string[] }> {
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
    const merchant = await createMerchant(service.ctx, { name: "Crash Shop" });
    const customerIds: string[] = [];
    for (let i = 0; i < customerCount; i++) {
      customerIds.push(
        (await seedActiveCustomer({ merchant, clock, ctx: service.ctx }, { balance: openingBalance })).customerId,
      );
    }
    // A bank that takes a while keeps engine jobs running when the process is killed.
    await service.ctx.tx.write((trx) => trx.updateTable("bank_accounts").set({ latency_ms: 40 }).execute());
    return { merchant, customerIds };
  } finally {
    await service.close();
  }
}

async function waitUntil(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 40_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("kill -9 with asynchronous charges in flight", () => {
  const processes: ServerProcess[] = [];
  let storage: Storage | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterAll(async () => {
    for (const child of processes) await child.kill("SIGKILL");
    await storage?.close();
    await cleanup?.();
  });

  it("brings every accepted request to a terminal status after a restart, with exactly one debit each", async () => {
    const fresh = freshDatabaseUrl();
    cleanup = fresh.cleanup;
    const { merchant, customerIds } = await provision(fresh.url);
    // A short job lease so the restarted process takes over the dead one's claimed jobs quickly.
    const env = { DATABASE_URL: fresh.url, JOB_LEASE_MS: "1500", API_KEY_CACHE_MS: "600000" };
    const first = await spawnServer(env);
    processes.push(first);

    let answered = 0;
    let killed: Promise<number | null> | undefined;
    const calls = Array.from({ length: requestCount }, async (_, i) => {
      const res = await fetch(`${first.url}/v1/payments/off-session/async`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${merchant.api_key}`,
          "content-type": "application/json",
          "idempotency-key": `crash-${i}`,
        },
        body: JSON.stringify({
          customer_id: customerIds[i % customerCount],
          charge: { price, description: `charge ${i}` },
        }),
      });
      const body = await res.json();
      // Pull the plug once half the requests have been answered: the rest are in flight.
      if (++answered === requestCount / 2) killed = first.kill("SIGKILL");
      return { status: res.status, body };
    });
    const settled = await Promise.allSettled(calls);
    await killed;
    const accepted = settled.flatMap((s) =>
      s.status === "fulfilled" && s.value.status === 200
        ? [s.value.body as { requestId: string; chargeId: string; status: string }]
        : [],
    );
    expect(accepted.length).toBeGreaterThanOrEqual(requestCount / 2);
    for (const request of accepted) expect(request.status).toBe("ASYNC_STATUS_PENDING");

    storage = await openStorage(fresh.url);
    const db = storage.db;
    const unfinished = async () =>
      db
        .selectFrom("async_requests")
        .select(["id", "status"])
        .where("status", "not in", [AsyncStatus.SUCCEEDED, AsyncStatus.FAILED, AsyncStatus.FAILED_TO_START])
        .execute();
    // The kill left work behind: requests the dead process had not finished.
    expect((await unfinished()).length).toBeGreaterThan(0);

    const second = await spawnServer(env);
    processes.push(second);
    await waitUntil(async () => (await unfinished()).length === 0, "every request is terminal");

    // Every accepted request (and any whose answer was lost in the kill) succeeded, once.
    const requests = await db.selectFrom("async_requests").select(["id", "status", "charge_id"]).execute();
    const byId = new Map(requests.map((r) => [r.id, r]));
    for (const request of accepted)
      expect(byId.get(request.requestId)).toMatchObject({ status: AsyncStatus.SUCCEEDED, charge_id: request.chargeId });
    const charges = await db.selectFrom("charges").select(["id", "status", "customer_id"]).execute();
    expect(charges.length).toBe(requests.length);
    expect(charges.every((c) => c.status === ChargeStatus.SUCCESS)).toBe(true);

    const ledger = await db.selectFrom("bank_ledger").select(["reference", "customer_id", "amount"]).execute();
    expect(ledger.length).toBe(charges.length);
    expect(new Set(ledger.map((row) => row.reference))).toEqual(new Set(charges.map((c) => c.id)));
    const accounts = await db.selectFrom("bank_accounts").select(["customer_id", "balance"]).execute();
    for (const account of accounts) {
      const debits = charges.filter((c) => c.customer_id === account.customer_id).length;
      expect(account.balance).toBe(openingBalance - debits * price);
    }
    expect(await db.selectFrom("jobs").select("id").where("kind", "=", "async-charge").execute()).toEqual([]);
    await expectDatabaseReconciled(fresh.url);

    // The API tells the same story.
    const sample = accepted[accepted.length - 1];
    const res = await fetch(`${second.url}/v1/payments/off-session/async/${sample.requestId}`, {
      headers: { authorization: `Bearer ${merchant.api_key}` },
    });
    expect((await res.json()).request.status).toBe("ASYNC_STATUS_SUCCEEDED");
  }, 120_000);
});
