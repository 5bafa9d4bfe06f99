import { afterAll, afterEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { DeliveryStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import { recordEvent } from "../../src/storage/events.js";
import { openStorage } from "../../src/storage/database.js";
import { Transactor } from "../../src/storage/transactor.js";
import { freshDatabaseUrl, startTestServer, type TestServer } from "../helpers/test-server.js";
import { runCli, spawnServer } from "../helpers/process-server.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

const root = new URL("../..", import.meta.url).pathname;

/** Retries an assertion until it holds (for state another process writes). */
async function eventually(assertion: () => unknown, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return void (await assertion());
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
const cleanups: Array<() => Promise<unknown>> = [];
/** Enough that the kill lands mid-delivery with attempts in flight, few enough to stay quick on PostgreSQL. */
const eventCount = 400;
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("nothing lost across a kill -9", () => {
  it(`delivers all ${eventCount} pending events after a crash mid-delivery, with no id missing`, async () => {
    const fresh = freshDatabaseUrl();
    cleanups.push(fresh.cleanup);
    // Short attempt timeout, so the leases of attempts cut off by the kill lapse within seconds.
    const env = { DATABASE_URL: fresh.url, WEBHOOK_TIMEOUT_MS: "1000" };
    const merchant = await runCli<{ merchant_id: string; webhook_secret: string }>(
      ["merchants", "create", "--name", "Crash Shop"],
      env,
    );
    // Answers slowly enough that attempts are in flight when the process dies.
    const receiver = await startWebhookReceiver(merchant.webhook_secret, { status: 200, delayMs: 20 });
    cleanups.push(() => receiver.close());
    await runCli(["merchants", "set-webhook", "--merchant", merchant.merchant_id, "--webhook-url", receiver.url], env);

    const storage = await openStorage(fresh.url);
    cleanups.push(() => storage.close());
    const tx = new Transactor(storage);
    const ids = await tx.write(async (trx) => {
      const now = new Date();
      const recorded: string[] = [];
      for (let i = 0; i < eventCount; i++) {
        const chargeId = `trx-crash${i}`;
        recorded.push(
          await recordEvent(trx, {
            merchantId: merchant.merchant_id,
            type: EventType.CHARGE_SUCCESS,
            chargeId,
            content: { id: chargeId, final_amount: i + 1 },
            now,
          }),
        );
      }
      return recorded;
    });

    const first = await spawnServer(env);
    await receiver.waitFor((r) => r.delivered.length >= eventCount / 4);
    expect(await first.kill("SIGKILL")).toBe(null);
    const beforeRestart = new Set(receiver.delivered.map((d) => d.id));
    expect(beforeRestart.size).toBeLessThan(eventCount);

    const second = await spawnServer(env);
    cleanups.push(() => second.kill());
    await receiver.waitFor((r) => new Set(r.delivered.map((d) => d.id)).size === eventCount, 100_000);

    const delivered = new Set(receiver.delivered.map((d) => d.id));
    expect([...delivered].sort()).toEqual([...ids].sort());
    expect(receiver.rejected).toEqual([]);
    // Each event carries its own content, whichever process sent it.
    for (const d of receiver.delivered) expect(d.content.id).toBe(`trx-crash${ids.indexOf(d.id)}`);
    // And the outbox says so (the last outcomes are written just after the receiver answered).
    const deliveredRows = () =>
      storage.db
        .selectFrom("events")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("delivery_status", "=", DeliveryStatus.DELIVERED)
        .executeTakeFirstOrThrow();
    await eventually(async () => expect(Number((await deliveredRows()).n)).toBe(eventCount));
  }, 150_000);
});

describe("furikomi listen", () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  afterAll(async () => {
    await receiver?.close();
    await server?.stop();
  });

  it("forwards each new event to a local URL, re-signed, one line per event", async () => {
    server = await startTestServer();
    const merchant = server.merchant;
    receiver = await startWebhookReceiver(merchant.webhook_secret);
    const record = (type: EventType, chargeId: string) =>
      server.ctx.tx.write((trx) =>
        recordEvent(trx, {
          merchantId: merchant.merchant_id,
          type,
          chargeId,
          content: { id: chargeId, error: { code: "ERROR_TYPE_PAYMENT_CHARGE_FAILED" } },
          now: server.clock.now(),
        }),
      );
    const before = await record(EventType.CHARGE_SUCCESS, "trx-before");

    const child = spawn(
      process.execPath,
      [
        "bin/furikomi.js",
        "listen",
        "--api-key",
        merchant.api_key,
        "--forward-to",
        receiver.url,
        "--base-url",
        server.url,
        "--secret",
        merchant.webhook_secret,
        "--interval-ms",
        "100",
      ],
      { cwd: root, env: { ...process.env, MODE: "sandbox" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    cleanups.push(async () => {
      child.kill("SIGKILL");
      await exited;
    });
    const lines: string[] = [];
    createInterface({ input: child.stdout! }).on("line", (line) => lines.push(line));
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on("line", (line) => line.startsWith("Ready") && resolve());
      void exited.then((code) => reject(new Error(`listen exited with ${code}`)));
    });

    const created = await record(EventType.TEST_CHARGE_CREATED, "trx-listen");
    const failed = await record(EventType.TEST_CHARGE_FAIL, "trx-listen");
    await receiver.waitFor((r) => r.delivered.length === 2);

    // The same envelope as the server would send: same ids, in order, verified by the receiver.
    expect(receiver.delivered.map((d) => [d.id, d.event_type])).toEqual([
      [created, "charge.created"],
      [failed, "charge.fail"],
    ]);
    expect(receiver.delivered[1].content).toEqual({
      id: "trx-listen",
      error: { code: "ERROR_TYPE_PAYMENT_CHARGE_FAILED" },
    });
    expect(receiver.requests.some((r) => r.id === before)).toBe(false);
    expect(receiver.rejected).toEqual([]);
    await eventually(() => expect(lines).toHaveLength(2));
    expect(lines[0]).toMatch(new RegExp(`^\\S+Z  ${created}  charge\\.created  200$`));
    expect(lines[1]).toMatch(new RegExp(`^\\S+Z  ${failed}  charge\\.fail  200$`));

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
