import { afterEach, describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { sql } from "kysely";
import pino from "pino";
import { AsyncStatus, ChargeStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import { loadConfig } from "../../src/config.js";
import { createMerchant, type CreatedMerchant } from "../../src/flows/merchants.js";
import { startService, type RunningService } from "../../src/composition-root.js";
import { openStorage } from "../../src/storage/database.js";
import { Transactor, type Tx } from "../../src/storage/transactor.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { spawnServer, type ServerProcess } from "../helpers/process-server.js";
import { freshDatabaseUrl } from "../helpers/test-server.js";
import { receiveWebhooksOf, type WebhookReceiver } from "../helpers/webhook-receiver.js";
import { expectReconciled } from "../helpers/reconcile.js";

// Several server processes on one PostgreSQL schema (vitest.config.ts runs this file in the
// PostgreSQL pass only): requests spread over them, duplicates sent to different instances, one
// instance killed with -9, and the database alone keeps every money rule.

const requestCount = 400;
/** Every fifth request is sent twice at once, under its key, to two different instances. */
const duplicateEvery = 5;
const customerCount = 50;
const price = 100;
const openingBalance = 100_000;
const terminal = [AsyncStatus.SUCCEEDED, AsyncStatus.FAILED, AsyncStatus.FAILED_TO_START];
/** A bound, not a goal: several processes and PostgreSQL share two cores with the other test pass. */
const longRun = 180_000;

/** A schema of its own with one merchant (webhooks to a real receiver) and active customers; `service` is a worker-less instance for reading it. */
interface Shop {
  databaseUrl: string;
  service: RunningService;
  merchant: CreatedMerchant;
  customerIds: string[];
  receiver: WebhookReceiver;
  close(): Promise<void>;
}

async function openShop(options: { bankLatencyMs: number }): Promise<Shop> {
  const fresh = freshDatabaseUrl("postgres");
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: fresh.url,
    WORKERS: "off",
    LOG_LEVEL: "silent",
  });
  const service = await startService(config, { logger: pino({ level: "silent" }) });
  const merchant = await createMerchant(service.ctx, { name: "Scale Shop" });
  const receiver = await receiveWebhooksOf(service.ctx, merchant);
  const customerIds: string[] = [];
  for (let i = 0; i < customerCount; i++) {
    customerIds.push(
      (await seedActiveCustomer({ merchant, clock: service.ctx.clock, ctx: service.ctx }, { balance: openingBalance }))
        .customerId,
    );
  }
  await service.ctx.tx.write((trx) =>
    trx.updateTable("bank_accounts").set({ latency_ms: options.bankLatencyMs }).execute(),
  );
  return {
    databaseUrl: fresh.url,
    service,
    merchant,
    customerIds,
    receiver,
    async close() {
      await receiver.close();
      await service.close();
      await fresh.cleanup();
    },
  };
}

/** Instances as a deployment runs them: short leases, so a dead instance's work is taken over within seconds. */
function instanceEnv(shop: Shop): Record<string, string> {
  return {
    DATABASE_URL: shop.databaseUrl,
    JOB_LEASE_MS: "2000",
    WEBHOOK_TIMEOUT_MS: "1000",
    API_KEY_CACHE_MS: "600000",
  };
}

type Answer =
  | {
      instance: number;
      status: number;
      body: { requestId?: string; chargeId?: string; status?: string; code?: string };
    }
  | { instance: number; lost: true };

/**
 * Sends request `i` to instance `i % n` and, for every fifth, a duplicate under the same key to
 * the next instance at the same moment. A duplicate told the first is still in flight (409)
 * asks again, as a client would; a request whose instance is gone has no answer (`lost`).
 * At most `concurrency` requests are open at once; `onAnswered` sees the count of answers so far.
 */
async function sendAll(
  shop: Shop,
  instances: ServerProcess[],
  onAnswered: (answered: number) => void = () => {},
  concurrency = 48,
): Promise<Array<{ key: string; answers: Answer[] }>> {
  let answered = 0;
  const send = async (i: number, instance: number): Promise<Answer> => {
    for (let asked = 0; ; asked++) {
      try {
        const res = await fetch(`${instances[instance].url}/v1/payments/off-session/async`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${shop.merchant.api_key}`,
            "content-type": "application/json",
            "idempotency-key": `scale-${i}`,
          },
          body: JSON.stringify({
            customer_id: shop.customerIds[i % customerCount],
            charge: { price, description: `order ${i}` },
          }),
        });
        const body = await res.json();
        if (res.status === 409 && asked < 200) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          continue;
        }
        onAnswered(++answered);
        return { instance, status: res.status, body };
      } catch {
        return { instance, lost: true };
      }
    }
  };
  const results: Array<{ key: string; answers: Answer[] }> = [];
  let next = 0;
  const worker = async () => {
    while (next < requestCount) {
      const i = next++;
      const first = i % instances.length;
      const targets = i % duplicateEvery === 0 ? [first, (first + 1) % instances.length] : [first];
      results[i] = { key: `scale-${i}`, answers: await Promise.all(targets.map((instance) => send(i, instance))) };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

async function waitUntil(condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function unfinishedRequests(shop: Shop): Promise<number> {
  const rows = await shop.service.ctx.tx.db
    .selectFrom("async_requests")
    .select("id")
    .where("status", "not in", terminal)
    .execute();
  return rows.length;
}

/**
 * The money and delivery invariants, read from the shared database and the receiver: one charge
 * per key, every request succeeded, one debit per charge (balances agree), one CHARGE_SUCCESS
 * event per charge, each delivered at least once.
 */
async function expectSettledOnce(shop: Shop, sent: Array<{ key: string; answers: Answer[] }>): Promise<void> {
  const db = shop.service.ctx.tx.db;
  const requests = await db.selectFrom("async_requests").select(["id", "status", "charge_id", "attempts"]).execute();
  const charges = await db.selectFrom("charges").select(["id", "status", "customer_id", "request_id"]).execute();
  const keys = await db.selectFrom("idempotency_keys").select(["idempotency_key", "resource_id", "state"]).execute();
  // Duplicates made nothing: one request and one charge per key that got that far.
  expect(charges.length).toBe(requests.length);
  expect(new Set(keys.map((k) => k.resource_id).filter(Boolean))).toEqual(new Set(charges.map((c) => c.id)));
  expect(requests.every((r) => r.status === AsyncStatus.SUCCEEDED)).toBe(true);
  expect(charges.every((c) => c.status === ChargeStatus.SUCCESS)).toBe(true);

  // Every accepted answer agrees with the database, and both answers to a duplicated key name the same request.
  const byRequestId = new Map(requests.map((r) => [r.id, r]));
  for (const { answers } of sent) {
    const ok = answers.flatMap((a) => ("lost" in a || a.status !== 200 ? [] : [a]));
    expect(new Set(ok.map((a) => a.body.requestId)).size).toBeLessThanOrEqual(1);
    for (const answer of ok)
      expect(byRequestId.get(answer.body.requestId!)).toMatchObject({ charge_id: answer.body.chargeId });
  }

  // Exactly one debit per charge, and the balances say the same.
  const ledger = await db.selectFrom("bank_ledger").select(["reference", "customer_id", "amount"]).execute();
  expect(ledger.length).toBe(charges.length);
  expect(new Set(ledger.map((row) => row.reference))).toEqual(new Set(charges.map((c) => c.id)));
  expect(ledger.every((row) => row.amount === -price)).toBe(true);
  const accounts = await db.selectFrom("bank_accounts").select(["customer_id", "balance"]).execute();
  for (const account of accounts) {
    expect(account.balance).toBe(
      openingBalance - charges.filter((c) => c.customer_id === account.customer_id).length * price,
    );
  }

  // One CHARGE_SUCCESS per charge, each delivered to the merchant once or more; none lost.
  const events = await db.selectFrom("events").select(["id", "charge_id", "event_type"]).execute();
  expect(events.every((e) => e.event_type === EventType.CHARGE_SUCCESS)).toBe(true);
  expect(events.map((e) => e.charge_id).sort()).toEqual(charges.map((c) => c.id).sort());
  await shop.receiver.waitFor((r) => new Set(r.delivered.map((d) => d.id)).size >= events.length, 60_000);
  const delivered = new Set(shop.receiver.delivered.map((d) => d.id));
  expect([...delivered].sort()).toEqual(events.map((e) => e.id).sort());
  expect(shop.receiver.rejected).toEqual([]);
  await expectReconciled(shop.service);
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("two instances on one PostgreSQL", () => {
  it(
    `brings ${requestCount} requests, duplicates sent to the other instance, to one debit and one delivered event each`,
    async () => {
      const shop = await openShop({ bankLatencyMs: 20 });
      cleanups.push(() => shop.close());
      const instances = await Promise.all([spawnServer(instanceEnv(shop)), spawnServer(instanceEnv(shop))]);
      cleanups.push(() => Promise.all(instances.map((i) => i.kill())));

      const sent = await sendAll(shop, instances);
      expect(sent.flatMap((s) => s.answers).every((a) => !("lost" in a) && a.status === 200)).toBe(true);
      expect(new Set(sent.map((s) => (s.answers[0] as { body: { requestId: string } }).body.requestId)).size).toBe(
        requestCount,
      );
      await waitUntil(async () => (await unfinishedRequests(shop)) === 0, "every request is terminal");
      await expectSettledOnce(shop, sent);
      expect(await shop.service.ctx.tx.db.selectFrom("async_requests").select("id").execute()).toHaveLength(
        requestCount,
      );
    },
    longRun,
  );

  it("never refunds more than the charge when refunds arrive at both instances at once", async () => {
    const shop = await openShop({ bankLatencyMs: 0 });
    cleanups.push(() => shop.close());
    const instances = await Promise.all([spawnServer(instanceEnv(shop)), spawnServer(instanceEnv(shop))]);
    cleanups.push(() => Promise.all(instances.map((i) => i.kill())));
    const call = (instance: ServerProcess, path: string, json: object) =>
      fetch(`${instance.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${shop.merchant.api_key}`, "content-type": "application/json" },
        body: JSON.stringify(json),
      }).then(async (res) => ({ status: res.status, body: await res.json() }));

    const paid = await call(instances[0], "/v1/payments/off-session", {
      customer_id: shop.customerIds[0],
      charge: { price: 10_000, description: "tea set" },
    });
    expect(paid.body.charge.chargeStatus).toBe("CHARGE_STATUS_SUCCESS");
    const chargeId = paid.body.charge.chargeId;
    // 100 partial refunds of 150 yen, alternating between the instances: 66 fit (9,900), the rest must not.
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call(instances[i % 2], "/v1/refund", { charge_id: chargeId, amount: 150 })),
    );
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted).toHaveLength(66);
    expect(
      answers
        .filter((a) => a.status !== 200)
        .every((a) => a.body.message === "refund amount exceeds refundable amount"),
    ).toBe(true);
    expect(new Set(accepted.map((a) => a.body.refund.refundId)).size).toBe(66);

    const charge = await shop.service.ctx.tx.db
      .selectFrom("charges")
      .select(["amount", "refunded_amount", "pending_refund_amount"])
      .where("id", "=", chargeId)
      .executeTakeFirstOrThrow();
    expect(charge.refunded_amount + charge.pending_refund_amount).toBe(9900);
    const refunds = await shop.service.ctx.tx.db
      .selectFrom("refunds")
      .select(["id", "amount"])
      .where("charge_id", "=", chargeId)
      .execute();
    expect(refunds.map((r) => r.id).sort()).toEqual(accepted.map((a) => a.body.refund.refundId).sort());
    await expectReconciled(shop.service);
  });
});

describe("three instances on one PostgreSQL, one killed with -9 mid-run", () => {
  it("migrates once when all three start together on an empty schema", async () => {
    const fresh = freshDatabaseUrl("postgres");
    cleanups.push(fresh.cleanup);
    const env = { DATABASE_URL: fresh.url };
    const instances = await Promise.all([spawnServer(env), spawnServer(env), spawnServer(env)]);
    cleanups.push(() => Promise.all(instances.map((i) => i.kill())));
    // Had two of them migrated at once, one would have died on a table that already exists.
    for (const instance of instances) expect((await fetch(`${instance.url}/healthz`)).status).toBe(200);
    const storage = await openStorage(fresh.url);
    cleanups.push(() => storage.close());
    const applied = await storage.db
      .selectFrom("kysely_migration" as never)
      .select("name" as never)
      .execute();
    expect(applied).toHaveLength(readdirSync(new URL("../../src/storage/migrations", import.meta.url)).length);
  });

  it(
    `the two left finish the dead instance's work: every request terminal, one debit each, every event delivered`,
    async () => {
      // A slow bank keeps each instance's engine jobs in flight when the kill comes.
      const shop = await openShop({ bankLatencyMs: 200 });
      cleanups.push(() => shop.close());
      const instances = await Promise.all([0, 1, 2].map(() => spawnServer(instanceEnv(shop))));
      cleanups.push(() => Promise.all(instances.map((i) => i.kill())));

      let killed: Promise<number | null> | undefined;
      const sent = await sendAll(shop, instances, (answered) => {
        if (answered === requestCount / 2) killed = instances[0].kill("SIGKILL");
      });
      expect(await killed).toBe(null);
      // Requests to the dead instance after the kill went unanswered; the others were answered 200,
      // except a duplicate whose first went down with the instance: still in flight (409) until
      // that claim's lease lapses.
      expect(sent.some((s) => s.answers.some((a) => "lost" in a))).toBe(true);
      for (const { answers } of sent) {
        const lostOne = answers.some((a) => "lost" in a);
        for (const answer of answers)
          if (!("lost" in answer)) expect(answer.status === 200 || (lostOne && answer.status === 409)).toBe(true);
      }

      await waitUntil(async () => (await unfinishedRequests(shop)) === 0, "every request is terminal");
      await expectSettledOnce(shop, sent);
      // Some engine job of the dead instance was taken over after its lease lapsed: a second bank call, booked once.
      const retried = await shop.service.ctx.tx.db
        .selectFrom("async_requests")
        .select("id")
        .where("attempts", ">=", 2)
        .execute();
      expect(retried.length).toBeGreaterThan(0);
    },
    longRun,
  );
});

describe("wake-ups across instances (LISTEN/NOTIFY)", () => {
  /** A shop whose own service has no workers, and a worker instance that polls only every ten minutes. */
  async function idleWorker(): Promise<{ shop: Shop; worker: RunningService }> {
    const shop = await openShop({ bankLatencyMs: 0 });
    cleanups.push(() => shop.close());
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: shop.databaseUrl,
      WORKER_POLL_MS: "600000",
      LOG_LEVEL: "silent",
    });
    const worker = await startService(config, { logger: pino({ level: "silent" }) });
    cleanups.push(() => worker.close());
    // Its start-up pass has found nothing: from now on it sleeps on its ten-minute poll unless rung.
    await worker.jobs.drain();
    return { shop, worker };
  }

  /** An async charge through the worker-less instance; resolves once some instance ran it. */
  async function chargeThroughShop(shop: Shop): Promise<void> {
    const res = await fetch(`${shop.service.url}/v1/payments/off-session/async`, {
      method: "POST",
      headers: { authorization: `Bearer ${shop.merchant.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ customer_id: shop.customerIds[0], charge: { price, description: "woken" } }),
    });
    const { requestId } = await res.json();
    await waitUntil(async () => (await unfinishedRequests(shop)) === 0, "the job ran", 20_000);
    const request = await shop.service.ctx.tx.db
      .selectFrom("async_requests")
      .select("status")
      .where("id", "=", requestId)
      .executeTakeFirstOrThrow();
    expect(request.status).toBe(AsyncStatus.SUCCEEDED);
  }

  it("an idle instance that would not poll for ten minutes runs a job another instance queued", async () => {
    const { shop } = await idleWorker();
    // Only the NOTIFY the shop's instance sends after its commit can start the job in the worker.
    await chargeThroughShop(shop);
    await shop.receiver.waitFor((r) => r.delivered.length === 1);
  });

  it("listens again after its connection is cut, and catches up on what it missed meanwhile", async () => {
    const { shop } = await idleWorker();
    const listeners = () =>
      sql<{
        pid: number;
      }>`select pid from pg_stat_activity where query = ${`listen "furikomi_wake_${new URL(shop.databaseUrl).searchParams.get("schema")}"`}`.execute(
        shop.service.ctx.tx.db,
      );
    const [cut] = (await listeners()).rows;
    expect(cut).toBeDefined();
    await sql`select pg_terminate_backend(${cut.pid})`.execute(shop.service.ctx.tx.db);
    // Queued at once, while nobody listens: the notification is lost, the reconnect rings anyway.
    await chargeThroughShop(shop);
    const [again] = (await listeners()).rows;
    expect(again.pid).not.toBe(cut.pid);
  });
});

describe("a deadlock between two instances", () => {
  it("is retried: both transactions commit, the one PostgreSQL chose as victim run again", async () => {
    const fresh = freshDatabaseUrl("postgres");
    cleanups.push(fresh.cleanup);
    const [a, b] = [await openStorage(fresh.url), await openStorage(fresh.url)];
    cleanups.push(() => Promise.all([a.close(), b.close()]));
    await sql`create table counters (id int primary key, n int not null)`.execute(a.db);
    await sql`insert into counters values (1, 0), (2, 0)`.execute(a.db);

    // Each locks one row, waits until the other holds its row, then asks for the other's: a deadlock.
    let holding = 0;
    let bothHolding!: () => void;
    const barrier = new Promise<void>((resolve) => (bothHolding = resolve));
    let runs = 0;
    const bump = (first: number, second: number) => async (trx: Tx) => {
      runs++;
      await sql`update counters set n = n + 1 where id = ${first}`.execute(trx);
      if (++holding === 2) bothHolding();
      await barrier;
      await sql`update counters set n = n + 1 where id = ${second}`.execute(trx);
    };
    await Promise.all([new Transactor(a).write(bump(1, 2)), new Transactor(b).write(bump(2, 1))]);

    expect(runs).toBe(3);
    const rows = await sql<{ id: number; n: number }>`select id, n from counters order by id`.execute(a.db);
    expect(rows.rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });
});
