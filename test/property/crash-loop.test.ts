import { afterAll, describe, expect, it } from "vitest";
import { ChargeStatus, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { bundleServer } from "../helpers/bundled-server.js";
import { CrashLedger, writeUntil, type SentWrite } from "../helpers/crash-workload.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { spawnServer, type ServerProcess } from "../helpers/process-server.js";
import { provisionDatabase } from "../helpers/provision.js";
import { freshDatabaseUrl } from "../helpers/test-server.js";
import { expectDatabaseReconciled } from "../helpers/reconcile.js";

/**
 * A real server process under a steady mix of writes is killed with -9 at a random moment, again
 * and again. After each kill the database is intact and holds every acknowledged write exactly
 * once; after each restart every async request reaches a terminal status.
 */
const kills = Number(process.env.CRASH_KILLS ?? 15);
const customerCount = 20;

async function provision(databaseUrl: string) {
  return provisionDatabase(databaseUrl, "Crash Loop Shop", async ({ merchant, clock, ctx }) => {
    const customerIds: string[] = [];
    for (let i = 0; i < customerCount; i++)
      customerIds.push((await seedActiveCustomer({ merchant, clock, ctx }, { balance: 100_000_000 })).customerId);
    // A bank that takes a moment keeps charges between the bank call and their commit when the kill comes.
    await ctx.tx.write((trx) => trx.updateTable("bank_accounts").set({ latency_ms: 15 }).execute());
    return { customerIds };
  });
}

async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every acknowledged write is there once; an unacknowledged one at most once. */
function expectExactlyOnce(ledger: CrashLedger, sent: SentWrite[]): { acked: number } {
  let acked = 0;
  for (const write of sent) {
    if (write.acked) acked++;
    if (write.kind === "refund") {
      const rows = ledger.refundsWithReason(write.key);
      expect(rows.length, write.key).toBeLessThanOrEqual(1);
      if (write.acked)
        expect(
          rows.map((r) => r.id),
          write.key,
        ).toEqual([write.acked.refundId]);
      continue;
    }
    const rows = ledger.chargesDescribed(write.key);
    expect(rows.length, write.key).toBeLessThanOrEqual(1);
    if (!write.acked) continue;
    expect(
      rows.map((r) => r.id),
      write.key,
    ).toEqual([write.acked.chargeId]);
    if (write.kind === "async")
      expect(ledger.requestOf(write.acked.requestId!)?.charge_id, write.key).toBe(write.acked.chargeId);
  }
  return { acked };
}

/** Once terminal, each async charge has exactly one outcome event; each settled refund one event. */
function expectEventsOnce(ledger: CrashLedger, sent: SentWrite[]): void {
  for (const write of sent) {
    if (write.kind === "async") {
      for (const charge of ledger.chargesDescribed(write.key)) {
        const terminal = charge.status === ChargeStatus.SUCCESS || charge.status === ChargeStatus.FAILURE;
        expect(ledger.chargeOutcomeEvents(charge.id), write.key).toBe(terminal ? 1 : 0);
      }
    }
    if (write.kind === "refund") {
      for (const refund of ledger.refundsWithReason(write.key)) {
        expect(ledger.refundEvents(refund.id), write.key).toBe(refund.status === RefundStatus.PENDING ? 0 : 1);
      }
    }
  }
}

describe("crash loop: kill -9 under a steady mix of writes", () => {
  const fresh = freshDatabaseUrl("sqlite");
  const file = fresh.url.replace(/^file:/, "");
  let current: ServerProcess | undefined;
  afterAll(async () => {
    await current?.kill("SIGKILL");
    await fresh.cleanup();
  });

  it(`loses nothing and doubles nothing over ${kills} kills`, async () => {
    const { merchant, customerIds } = await provision(fresh.url);
    const entry = await bundleServer();
    // A short job lease: the restarted process takes over the dead one's claimed jobs quickly.
    const env = { DATABASE_URL: fresh.url, JOB_LEASE_MS: "300", API_KEY_CACHE_MS: "600000" };
    const history: SentWrite[] = [];
    let refundable: string[] = [];
    let totals = { writes: 0, acked: 0 };
    for (let round = 0; round < kills; round++) {
      current = await spawnServer(env, { entry });
      const server = current;
      // After the restart: the dead process's async requests all reach a terminal status.
      const reader = new CrashLedger(file);
      await waitUntil(() => reader.unfinishedRequests() === 0, `round ${round}: every async request is terminal`);
      expectEventsOnce(reader, history);
      expect(reader.ledgerMismatches()).toEqual([]);
      await expectDatabaseReconciled(fresh.url);
      refundable = reader.succeededChargeIds();
      reader.close();

      // The kill comes at a random moment once the writes flow (a few answered), not during start-up.
      let answered = 0;
      let flowing: () => void = () => {};
      const killed = new Promise<void>((resolve) => (flowing = resolve))
        .then(() => new Promise((resolve) => setTimeout(resolve, Math.random() * 300)))
        .then(() => server.kill("SIGKILL"));
      const onAck = () => ++answered === 3 && flowing();
      const sent = await writeUntil(server.url, merchant.api_key, {
        customerIds,
        refundable,
        round,
        writers: 6,
        stop: killed,
        onAck,
      });
      await killed;
      current = undefined;
      history.push(...sent);

      // Between processes: the file is intact and every acknowledged write is in it once.
      const afterKill = new CrashLedger(file);
      expect(afterKill.integrity()).toBe("ok");
      const { acked } = expectExactlyOnce(afterKill, history);
      afterKill.close();
      totals = { writes: history.length, acked };
    }
    current = await spawnServer(env, { entry });
    const last = new CrashLedger(file);
    await waitUntil(() => last.unfinishedRequests() === 0, "every async request is terminal after the last kill");
    expectEventsOnce(last, history);
    expect(last.ledgerMismatches()).toEqual([]);
    await expectDatabaseReconciled(fresh.url);
    last.close();
    const ackedOf = (kind: SentWrite["kind"]) => history.filter((w) => w.kind === kind && w.acked).length;
    console.log(
      `crash loop: ${kills} kills, ${totals.writes} writes sent, ${totals.acked} acknowledged (async ${ackedOf("async")}, on-session ${ackedOf("on-session")}, refunds ${ackedOf("refund")}), all present exactly once`,
    );
    expect(totals.acked).toBeGreaterThan(kills);
  }, 600_000);
});
