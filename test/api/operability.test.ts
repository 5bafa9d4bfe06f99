import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { createServer, connect, type Server, type Socket } from "node:net";
import pg from "pg";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { newId } from "../../src/domain/ids.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { api, postgresUrl, startTestServer, type TestServer } from "../helpers/test-server.js";

/** The value of one sample line of a Prometheus exposition, e.g. `furikomi_queue_depth{queue="webhook_outbox"}`. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split("\n").find((l) => l.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(server: TestServer): Promise<string> {
  const res = await fetch(`${server.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

describe("GET /metrics", () => {
  let server: TestServer;
  beforeAll(async () => {
    // No workers: what is queued stays queued, so depth and age are exact.
    server = await startTestServer({ env: { WORKERS: "off" }, clockStart: new Date("2026-04-01T00:00:00Z") });
  });
  afterAll(async () => server?.stop());

  it("counts calls by method and code, and times them", async () => {
    const client = server.client(PaymentService);
    await client.listCustomers({});
    await client.listCustomers({});
    await expect(client.getCustomer({ customer: newId("cus") })).rejects.toMatchObject({ code: Code.NotFound });
    const unauthenticated = await api(server, "/v1/customers", { apiKey: "sk_test_nobody" });
    expect(unauthenticated.status).toBe(401);

    const text = await scrape(server);
    expect(
      sample(text, 'furikomi_rpc_requests_total{method="payments.v1.PaymentService/ListCustomers",code="ok"}'),
    ).toBe(2);
    expect(
      sample(text, 'furikomi_rpc_requests_total{method="payments.v1.PaymentService/GetCustomer",code="not_found"}'),
    ).toBe(1);
    expect(
      sample(
        text,
        'furikomi_rpc_requests_total{method="payments.v1.PaymentService/ListCustomers",code="unauthenticated"}',
      ),
    ).toBe(1);
    expect(sample(text, 'furikomi_rpc_duration_seconds_count{method="payments.v1.PaymentService/ListCustomers"}')).toBe(
      3,
    );
    expect(
      sample(text, 'furikomi_rpc_duration_seconds_bucket{le="+Inf",method="payments.v1.PaymentService/GetCustomer"}'),
    ).toBe(1);
    expect(text).toContain("process_resident_memory_bytes");
    expect(sample(text, "furikomi_database_up")).toBe(1);
  });

  it("reports the depth and age of the async engine, the job queue and the webhook outbox", async () => {
    const before = await scrape(server);
    expect(sample(before, 'furikomi_queue_depth{queue="async_requests"}')).toBe(0);
    const { customerId } = await seedActiveCustomer(server);
    const accepted = await api(server, "/v1/payments/off-session/async", {
      method: "POST",
      json: { customer_id: customerId, charge: { price: 500, description: "box" } },
    });
    expect(accepted.status).toBe(200);
    server.clock.advance(90_000);

    const text = await scrape(server);
    expect(sample(text, 'furikomi_queue_depth{queue="async_requests"}')).toBe(1);
    expect(sample(text, 'furikomi_queue_oldest_age_seconds{queue="async_requests"}')).toBe(90);
    expect(sample(text, 'furikomi_queue_depth{queue="jobs:async-charge"}')).toBe(1);
    expect(sample(text, 'furikomi_queue_oldest_age_seconds{queue="jobs:async-charge"}')).toBeGreaterThanOrEqual(90);
    // This merchant has no webhook URL: its events are kept to read, not waiting to go out.
    expect(sample(text, 'furikomi_queue_depth{queue="webhook_outbox"}')).toBe(0);
    expect(sample(text, "furikomi_webhook_events_failed")).toBe(0);
  });
});

describe("webhook delivery outcomes in /metrics", () => {
  let server: TestServer;
  afterAll(async () => server?.stop());

  it("counts attempts that got no answer as failed", async () => {
    // A port nobody listens on: every attempt is refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    server = await startTestServer({ webhookUrl: `http://127.0.0.1:${port}/hook` });
    const { customerId } = await seedActiveCustomer(server);
    const accepted = await api(server, "/v1/payments/off-session/async", {
      method: "POST",
      json: { customer_id: customerId, charge: { price: 500, description: "box" } },
    });
    expect(accepted.status).toBe(200);
    await server.jobs.drain();
    await server.webhooks.drain();
    const text = await scrape(server);
    expect(sample(text, 'furikomi_webhook_deliveries_total{outcome="failed"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'furikomi_webhook_deliveries_total{outcome="delivered"}')).toBeUndefined();
    // The failed events wait for their next attempt.
    expect(sample(text, 'furikomi_queue_depth{queue="webhook_outbox"}')).toBeGreaterThanOrEqual(1);
  });
});

/** A TCP relay to PostgreSQL that the test can cut and restore, as a network failure would. */
async function startRelay(target: {
  host: string;
  port: number;
}): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => {});
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  const cut = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    sockets.forEach((s) => s.destroy());
    await closed;
  };
  await open();
  return { port, cut, restore: open, close: cut };
}

/** Polls /readyz until it answers 200, at most `attempts` times: recovery is the database's, not the clock's. */
async function readyWithin(server: TestServer, attempts: number): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if ((await fetch(`${server.url}/readyz`)).status === 200) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe("GET /readyz", () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  it("is ready on SQLite, and /healthz answers the same", async () => {
    const server = await startTestServer();
    servers.push(server);
    for (const path of ["/readyz", "/healthz"]) {
      const res = await fetch(server.url + path);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ok" });
    }
  });

  it("fails while PostgreSQL is unreachable and recovers when it is back", async () => {
    const pgUrl = new URL(postgresUrl);
    const relay = await startRelay({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
    const schema = `t_readyz_${process.pid}_${Date.now().toString(36)}`;
    const viaRelay = new URL(postgresUrl);
    viaRelay.port = String(relay.port);
    viaRelay.searchParams.set("schema", schema);
    const server = await startTestServer({ env: { DATABASE_URL: viaRelay.toString() } });
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

      await relay.cut();
      const down = await fetch(`${server.url}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ status: "unavailable" });
      expect(sample(await scrape(server), "furikomi_database_up")).toBe(0);

      await relay.restore();
      // The pool may still hold a connection the cut killed: the first probe can fail on it.
      expect(await readyWithin(server, 50)).toBe(true);
      expect(sample(await scrape(server), "furikomi_database_up")).toBe(1);
    } finally {
      await server.stop();
      await relay.close();
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
  });
});
