import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { DeliveryStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { recordEvent } from "../../src/storage/events.js";
import { listAllMerchants, setWebhookUrl } from "../../src/flows/merchants.js";
import { retryCeilingMs, retryWindowMs } from "../../src/domain/webhook-retry.js";
import { createWebhookTransport } from "../../src/ports/webhook-transport.js";
import { WebhookDispatcher } from "../../src/jobs/webhook-dispatcher.js";
import type { CreatedMerchant } from "../../src/flows/merchants.js";
import { api, dialects, startTestServer, type TestServer } from "../helpers/test-server.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

const start = new Date("2025-04-01T00:00:00.000Z");
const receivers: WebhookReceiver[] = [];

async function receiverFor(merchant: CreatedMerchant, behaviour?: Parameters<typeof startWebhookReceiver>[1]) {
  const receiver = await startWebhookReceiver(merchant.webhook_secret, behaviour);
  receivers.push(receiver);
  return receiver;
}

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** A charge body as docs/reference/contract.md#webhooks shows it, with text that JSON could write in more than one way. */
function chargeContent(chargeId: string, extra: object = {}) {
  return {
    id: chargeId,
    customer: "cus-webhooks",
    description: 'コーヒー豆 ☕ "blend" \\ 100%',
    merchant_name: "Test Shop",
    initial_amount: 1200,
    discount: 0,
    final_amount: 1200,
    currency: "JPY",
    created_at: start.toISOString(),
    updated_at: start.toISOString(),
    metadata: { "2": "b", order: "A-1", "1": "a" },
    ...extra,
  };
}

/** Writes an outbox event the way a flow does, inside a write transaction. */
async function record(
  server: TestServer,
  merchantId: string,
  type = EventType.CHARGE_SUCCESS,
  chargeId = "trx-webhooks1",
  content?: object,
): Promise<string> {
  return server.ctx.tx.write((trx) =>
    recordEvent(trx, {
      merchantId,
      type,
      chargeId,
      content: content ?? chargeContent(chargeId),
      now: server.clock.now(),
    }),
  );
}

async function eventOf(server: TestServer, apiKey: string, id: string) {
  const { event } = await server.client(PaymentService, apiKey).getEvent({ id });
  return event!;
}

async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}/webhooks`;
}

describe.each(dialects)("webhook delivery on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, clockStart: start, env: { WEBHOOK_TIMEOUT_MS: "300" } });
  });
  afterAll(async () => server?.stop());

  it("POSTs the contract's envelope, verifiable with standardwebhooks and by hand", async () => {
    const merchant = await server.newMerchant("Envelope Shop");
    const receiver = await receiverFor(merchant);
    await setWebhookUrl(server.ctx, merchant.merchant_id, receiver.url);
    const id = await record(server, merchant.merchant_id, EventType.CHARGE_SUCCESS, "trx-envelope");
    const createdId = await record(
      server,
      merchant.merchant_id,
      EventType.TEST_CHARGE_CREATED,
      "trx-envelope2",
      chargeContent("trx-envelope2", { api_source: 2 }),
    );
    await server.webhooks.drain();

    expect(receiver.rejected).toEqual([]);
    const byId = new Map(receiver.delivered.map((d) => [d.id, d]));
    const delivered = byId.get(id)!;
    expect(delivered.id).toMatch(/^mwh-/);
    expect(delivered.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(delivered.created_at).toBe(start.toISOString());
    expect(delivered.event_type).toBe("EVENT_TYPE_CHARGE_SUCCESS");
    expect(delivered.content).toEqual(chargeContent("trx-envelope"));
    expect(Object.keys(JSON.parse(delivered.raw))).toEqual(["id", "signature", "created_at", "event_type", "content"]);
    expect(delivered.headers["webhook-id"]).toBe(id);
    expect(delivered.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(delivered.headers["content-type"]).toBe("application/json");
    expect(byId.get(createdId)!.event_type).toBe("charge.created");
    expect(byId.get(createdId)!.content.api_source).toBe(2);

    const event = await eventOf(server, merchant.api_key, id);
    expect(event.deliveryStatus).toBe(DeliveryStatus.DELIVERED);
    expect(event.attempts).toHaveLength(1);
    expect(event.attempts[0]).toMatchObject({ httpStatus: 200, error: "" });
    expect(event.contentJson).toBe(delivered.rawContent);
  });

  it("delivers the events of one charge one at a time, in the order they were recorded", async () => {
    const merchant = await server.newMerchant("Order Shop");
    // A slow receiver: were the two sent in parallel, the second would arrive before the first answered.
    const receiver = await receiverFor(merchant, { status: 200, delayMs: 50 });
    await setWebhookUrl(server.ctx, merchant.merchant_id, receiver.url);
    const ids = await server.ctx.tx.write(async (trx) => {
      const now = server.clock.now();
      const created = await recordEvent(trx, {
        merchantId: merchant.merchant_id,
        type: EventType.TEST_CHARGE_CREATED,
        chargeId: "trx-order",
        content: chargeContent("trx-order"),
        now,
      });
      const failed = await recordEvent(trx, {
        merchantId: merchant.merchant_id,
        type: EventType.TEST_CHARGE_FAIL,
        chargeId: "trx-order",
        content: chargeContent("trx-order"),
        now,
      });
      return [created, failed];
    });
    await server.webhooks.drain();
    expect(receiver.requests.map((r) => r.event_type)).toEqual(["charge.created", "charge.fail"]);
    expect(receiver.requests[1].at).toBeGreaterThanOrEqual(receiver.requests[0].answeredAt!);
    expect(receiver.delivered.map((r) => r.id)).toEqual(ids);
  });

  it("gets every event through 500s, timeouts and dropped connections, with the same id", async () => {
    const merchant = await server.newMerchant("Flaky Shop");
    const receiver = await receiverFor(merchant, { status: 500 });
    await setWebhookUrl(server.ctx, merchant.merchant_id, receiver.url);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(await record(server, merchant.merchant_id, EventType.CHARGE_FAIL, `trx-flaky${i}`));
    await server.webhooks.drain();

    const answers: Array<[Parameters<WebhookReceiver["behave"]>[0], RegExp]> = [
      ["hang", /^timeout after 300 ms$/],
      ["drop", /^connection (reset|closed)/],
    ];
    for (const [failure, error] of answers) {
      receiver.behave(failure);
      server.clock.advance(retryCeilingMs(8)); // past any scheduled retry
      await server.webhooks.drain();
      for (const id of ids) {
        const event = await eventOf(server, merchant.api_key, id);
        expect(event.deliveryStatus).toBe(DeliveryStatus.PENDING);
        expect(event.attempts.at(-1)!.httpStatus).toBe(0);
        expect(event.attempts.at(-1)!.error).toMatch(error);
      }
    }
    receiver.behave({ status: 204 });
    server.clock.advance(retryCeilingMs(8));
    await server.webhooks.drain();

    expect(receiver.delivered.map((d) => d.id).sort()).toEqual([...ids].sort());
    // Every attempt carried one of the five ids: the same id on every attempt.
    expect(new Set(receiver.requests.map((r) => r.id))).toEqual(new Set(ids));
    for (const id of ids) {
      const event = await eventOf(server, merchant.api_key, id);
      expect(event.deliveryStatus).toBe(DeliveryStatus.DELIVERED);
      expect(event.attempts.map((a) => a.httpStatus)).toEqual([500, 0, 0, 204]);
      // At least once: a kept-alive connection found closed is retried once on a new one.
      expect(receiver.requests.filter((r) => r.id === id).length).toBeGreaterThanOrEqual(4);
    }
  });

  it("follows the retry schedule for 3 days, then marks the event FAILED and the merchant failing; redelivery recovers", async () => {
    const merchant = await server.newMerchant("Dead Shop");
    const receiver = await receiverFor(merchant, { status: 503 });
    await setWebhookUrl(server.ctx, merchant.merchant_id, receiver.url);
    const id = await record(server, merchant.merchant_id, EventType.CHARGE_SUCCESS, "trx-dead");
    const firstAttemptAt = server.clock.now().getTime();

    let event = await eventOf(server, merchant.api_key, id);
    for (let attempt = 1; ; attempt++) {
      await server.webhooks.drain();
      event = await eventOf(server, merchant.api_key, id);
      expect(event.attempts).toHaveLength(attempt);
      if (event.deliveryStatus === DeliveryStatus.FAILED) break;
      expect(event.deliveryStatus).toBe(DeliveryStatus.PENDING);
      // The next attempt is due within the published ceiling of this retry.
      const waitMs = timestampDate(event.nextAttemptAt!).getTime() - server.clock.now().getTime();
      expect(waitMs).toBeGreaterThanOrEqual(1_000);
      expect(waitMs).toBeLessThanOrEqual(retryCeilingMs(attempt));
      // Not a moment early: one millisecond before it is due, nothing happens.
      server.clock.advance(waitMs - 1);
      await server.webhooks.drain();
      expect((await eventOf(server, merchant.api_key, id)).attempts).toHaveLength(attempt);
      server.clock.advance(1);
    }
    const lastAttemptAt = timestampDate(event.attempts.at(-1)!.attemptedAt!).getTime();
    expect(lastAttemptAt - firstAttemptAt).toBeGreaterThanOrEqual(retryWindowMs);
    expect(lastAttemptAt - firstAttemptAt).toBeLessThan(retryWindowMs + 8 * 3_600_000);
    expect(event.attempts.every((a) => a.httpStatus === 503)).toBe(true);
    expect(receiver.requests.every((r) => r.id === id)).toBe(true);

    const marked = (await listAllMerchants(server.ctx)).find((m) => m.merchant_id === merchant.merchant_id)!;
    expect(marked.webhook_failing).toBe(true);
    expect(marked.webhook_failing_reason).toContain(id);
    expect(marked.webhook_failing_reason).toContain("HTTP 503");

    // The merchant fixes the endpoint and redelivers: same id, history kept, failing cleared.
    receiver.behave({ status: 200 });
    const { event: queued } = await server.client(PaymentService, merchant.api_key).redeliverEvent({ id });
    expect(queued!.id).toBe(id);
    await server.webhooks.drain();
    event = await eventOf(server, merchant.api_key, id);
    expect(event.deliveryStatus).toBe(DeliveryStatus.DELIVERED);
    expect(event.attempts.at(-1)!.httpStatus).toBe(200);
    expect(receiver.delivered.map((d) => d.id)).toEqual([id]);
    const cleared = (await listAllMerchants(server.ctx)).find((m) => m.merchant_id === merchant.merchant_id)!;
    expect(cleared).toMatchObject({ webhook_failing: false, webhook_failing_reason: "" });
  });

  it("keeps events PENDING without a URL, and sends them as soon as one is set; a fixed URL resumes at once", async () => {
    const merchant = await server.newMerchant("No URL Shop");
    const id = await record(server, merchant.merchant_id);
    await server.webhooks.drain();
    let event = await eventOf(server, merchant.api_key, id);
    expect(event.deliveryStatus).toBe(DeliveryStatus.PENDING);
    expect(event.attempts.map((a) => a.error)).toEqual([]);

    // A URL nobody listens on: refused, retried later.
    await setWebhookUrl(server.ctx, merchant.merchant_id, await closedPortUrl());
    await server.webhooks.drain();
    event = await eventOf(server, merchant.api_key, id);
    expect(event.attempts.map((a) => a.error)).toEqual(["connection refused"]);
    expect(timestampDate(event.nextAttemptAt!).getTime()).toBeGreaterThan(server.clock.now().getTime());

    // The merchant fixes the URL: the pending event goes out now, without waiting for its retry.
    const receiver = await receiverFor(merchant);
    await setWebhookUrl(server.ctx, merchant.merchant_id, receiver.url);
    await server.webhooks.drain();
    expect(receiver.delivered.map((d) => d.id)).toEqual([id]);
  });
});

describe("isolation between merchants", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clockStart: start });
  });
  afterAll(async () => server?.stop());

  it("a hanging endpoint holds at most 8 attempts and never delays another merchant", async () => {
    const slow = await server.newMerchant("Hanging Shop");
    const fast = await server.newMerchant("Fast Shop");
    const hanging = await receiverFor(slow, "hang");
    const quick = await receiverFor(fast);
    await setWebhookUrl(server.ctx, slow.merchant_id, hanging.url);
    await setWebhookUrl(server.ctx, fast.merchant_id, quick.url);
    for (let i = 0; i < 20; i++) await record(server, slow.merchant_id, EventType.CHARGE_SUCCESS, `trx-hang${i}`);
    server.ctx.wake("events");
    await hanging.waitFor((r) => r.hanging === 8);

    const id = await record(server, fast.merchant_id, EventType.CHARGE_SUCCESS, "trx-fast");
    server.ctx.wake("events");
    await quick.waitFor((r) => r.delivered.length === 1);
    expect(quick.delivered[0].id).toBe(id);
    // The slow merchant's attempts (10 s timeout) are all still in flight, and no more were started.
    expect(hanging.hanging).toBe(8);
    expect(hanging.requests).toHaveLength(8);
    hanging.behave({ status: 200 });
    hanging.releaseHanging();
    await server.webhooks.drain();
    // The 8 cut off are retried later; the 12 that waited for a slot went out now.
    expect(hanging.delivered).toHaveLength(12);
  });
});

describe("shutdown", () => {
  let server: TestServer;
  beforeAll(async () => {
    // No background workers: only the dispatchers this test drives touch the outbox.
    server = await startTestServer({ clockStart: start, env: { WORKERS: "off" } });
  });
  afterAll(async () => server?.stop());

  it("waits for in-flight attempts up to its grace period, then hands them back without counting them", async () => {
    const receiver = await receiverFor(server.merchant, "hang");
    await setWebhookUrl(server.ctx, server.merchant.merchant_id, receiver.url);
    const id = await record(server, server.merchant.merchant_id, EventType.CHARGE_SUCCESS, "trx-shutdown");
    const dispatcher = new WebhookDispatcher(
      server.ctx,
      server.logger,
      createWebhookTransport({ timeoutMs: 10_000, publicAddressesOnly: false }),
      {
        leaseMs: 60_000,
        shutdownGraceMs: 50,
      },
    );
    const draining = dispatcher.drain();
    await receiver.waitFor((r) => r.hanging === 1);
    await dispatcher.stop();
    await draining;

    let event = await eventOf(server, server.merchant.api_key, id);
    expect(event.deliveryStatus).toBe(DeliveryStatus.PENDING);
    expect(event.attempts.map((a) => a.error)).toEqual([]);
    // The lease was released: the next process sends it at once, without waiting for it to lapse.
    receiver.behave({ status: 200 });
    await server.webhooks.drain();
    event = await eventOf(server, server.merchant.api_key, id);
    expect(event.deliveryStatus).toBe(DeliveryStatus.DELIVERED);
    expect(receiver.requests.map((r) => r.id)).toEqual([id, id]);
  });
});

describe("the events API", () => {
  let server: TestServer;
  let ids: string[];
  beforeAll(async () => {
    server = await startTestServer({ clockStart: start });
    ids = [];
    // Five events a minute apart: two charge failures of trx-api1, then three others.
    const plan: Array<[EventType, string]> = [
      [EventType.CHARGE_FAIL, "trx-api1"],
      [EventType.CHARGE_FAIL, "trx-api1"],
      [EventType.CHARGE_SUCCESS, "trx-api2"],
      [EventType.REFUND_FAILED, "trx-api2"],
      [EventType.CONTRACT_ACTIVATED, ""],
    ];
    for (const [type, chargeId] of plan) {
      ids.push(await record(server, server.merchant.merchant_id, type, chargeId, chargeContent(chargeId)));
      server.clock.advance(60_000);
    }
  });
  afterAll(async () => server?.stop());

  it("lists newest first, filtered, in pages", async () => {
    const client = server.client(PaymentService);
    const all = await client.listEvents({});
    expect(all.events.map((e) => e.id)).toEqual([...ids].reverse());
    expect(all.nextPageToken).toBe("");
    expect(all.events.every((e) => e.deliveryStatus === DeliveryStatus.PENDING)).toBe(true);

    const seen: string[] = [];
    let pageToken = "";
    do {
      const page = await client.listEvents({ pageSize: 2, pageToken });
      expect(page.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.events.map((e) => e.id));
      pageToken = page.nextPageToken;
    } while (pageToken);
    expect(seen).toEqual([...ids].reverse());

    expect((await client.listEvents({ eventType: EventType.CHARGE_FAIL })).events.map((e) => e.id)).toEqual([
      ids[1],
      ids[0],
    ]);
    expect((await client.listEvents({ chargeId: "trx-api2" })).events.map((e) => e.id)).toEqual([ids[3], ids[2]]);
    const window = await client.listEvents({
      createdAfter: timestampFromDate(new Date(start.getTime() + 30_000)),
      createdBefore: timestampFromDate(new Date(start.getTime() + 150_000)),
    });
    expect(window.events.map((e) => e.id)).toEqual([ids[2], ids[1]]);
  });

  it("shows pending_only, GetEvent and RedeliverEvent over Connect and the plain paths", async () => {
    const receiver = await receiverFor(server.merchant);
    await setWebhookUrl(server.ctx, server.merchant.merchant_id, receiver.url);
    await server.webhooks.drain();
    // Without a URL the new event stays pending (the background poll cannot deliver it meanwhile).
    await setWebhookUrl(server.ctx, server.merchant.merchant_id, "");
    const late = await record(server, server.merchant.merchant_id, EventType.CHARGE_SUCCESS, "trx-api3");

    const pending = await api(server, "/v1/events?pending_only=true");
    expect(pending.status).toBe(200);
    expect((await pending.json()).events.map((e: { id: string }) => e.id)).toEqual([late]);

    const filtered = await api(server, "/v1/events?event_type=EVENT_TYPE_CHARGE_FAIL&page_size=1");
    const page = await filtered.json();
    expect(page.events.map((e: { id: string }) => e.id)).toEqual([ids[1]]);
    expect(page.nextPageToken).not.toBe("");

    const got = await api(server, `/v1/events/${ids[0]}`);
    expect(got.status).toBe(200);
    const { event } = await got.json();
    expect(event).toMatchObject({
      id: ids[0],
      eventType: "EVENT_TYPE_CHARGE_FAIL",
      eventTypeName: "EVENT_TYPE_CHARGE_FAIL",
      deliveryStatus: "DELIVERY_STATUS_DELIVERED",
      chargeId: "trx-api1",
    });
    expect(new Date(event.createdAt).toISOString()).toBe(start.toISOString());
    expect(JSON.parse(event.contentJson)).toEqual(chargeContent("trx-api1"));
    expect(event.attempts).toHaveLength(1);
    expect(event.attempts[0]).toMatchObject({ httpStatus: 200, error: "" });
    expect(event.attempts[0].attemptedAt).toMatch(/Z$/);

    await setWebhookUrl(server.ctx, server.merchant.merchant_id, receiver.url);
    const redelivered = await api(server, `/v1/events/${ids[0]}/redeliver`, { method: "POST", json: {} });
    expect(redelivered.status).toBe(200);
    expect((await redelivered.json()).event.id).toBe(ids[0]);
    await server.webhooks.drain();
    const after = await server.client(PaymentService).getEvent({ id: ids[0] });
    expect(after.event!.attempts).toHaveLength(2);
    expect(after.event!.deliveryStatus).toBe(DeliveryStatus.DELIVERED);
    expect(receiver.delivered.filter((d) => d.id === ids[0])).toHaveLength(2);
    expect(receiver.delivered.filter((d) => d.id === late)).toHaveLength(1);
  });

  it("answers another merchant's event exactly like a missing one", async () => {
    const other = await server.newMerchant("Nosy Shop");
    for (const path of [`/v1/events/${ids[0]}`, "/v1/events/mwh-missing"]) {
      const res = await api(server, path, { apiKey: other.api_key });
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe("not_found");
    }
    const redeliver = await api(server, `/v1/events/${ids[0]}/redeliver`, {
      method: "POST",
      json: {},
      apiKey: other.api_key,
    });
    expect(redeliver.status).toBe(404);
    const error = await server
      .client(PaymentService, other.api_key)
      .getEvent({ id: ids[0] })
      .then(
        () => undefined,
        (e) => ConnectError.from(e),
      );
    expect(error?.code).toBe(Code.NotFound);
    expect((await server.client(PaymentService, other.api_key).listEvents({})).events).toEqual([]);
  });

  it("refuses a page token it did not issue", async () => {
    const res = await api(server, "/v1/events?page_token=bm9wZQ");
    expect(res.status).toBe(400);
  });
});

describe("production mode", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clockStart: start, env: { MODE: "production" } });
  });
  afterAll(async () => server?.stop());

  it("refuses non-https and internal webhook URLs at registration", async () => {
    for (const [url, reason] of [
      ["http://shop.example.com/hook", /https/],
      ["https://127.0.0.1/hook", /loopback/],
      ["https://[::ffff:10.0.0.1]/hook", /private/],
      ["https://169.254.169.254/latest", /metadata/],
      ["https://localhost:8443/hook", /internal host name/],
    ] as const) {
      await expect(server.newMerchant("Prod Shop", url)).rejects.toThrow(reason);
      await expect(setWebhookUrl(server.ctx, server.merchant.merchant_id, url)).rejects.toThrow(reason);
    }
    expect((await server.newMerchant("Prod Shop", "https://shop.example.com/hook")).webhook_url).toBe(
      "https://shop.example.com/hook",
    );
  });

  it("refuses again at delivery, before anything is sent", async () => {
    const receiver = await receiverFor(server.merchant);
    // A URL stored before the rules (or by hand): delivery checks it anyway.
    await server.ctx.tx.write((trx) =>
      trx
        .updateTable("merchants")
        .set({ webhook_url: receiver.url })
        .where("id", "=", server.merchant.merchant_id)
        .execute(),
    );
    const id = await record(server, server.merchant.merchant_id);
    await server.webhooks.drain();
    const event = await eventOf(server, server.merchant.api_key, id);
    expect(event.attempts[0].error).toMatch(/^webhook URL refused: .*https/);
    expect(receiver.requests).toHaveLength(0);
  });

  it("checks every address a host name resolves to, after DNS resolution", async () => {
    const receiver = await receiverFor(server.merchant);
    const transport = createWebhookTransport({ timeoutMs: 1_000, publicAddressesOnly: true });
    try {
      const answer = await transport.post(receiver.url.replace("127.0.0.1", "localhost"), "{}", {});
      expect(answer.httpStatus).toBe(0);
      expect(answer.error).toMatch(/^address refused: localhost resolves to (127\.0\.0\.1|::1), loopback$/);
      const literal = await transport.post(receiver.url, "{}", {});
      expect(literal.error).toMatch(/^address refused: 127\.0\.0\.1 is loopback$/);
    } finally {
      transport.close();
    }
    expect(receiver.requests).toHaveLength(0);
    expect(receiver.rejected).toHaveLength(0);
  });
});
