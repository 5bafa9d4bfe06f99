import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { newId } from "../../src/domain/ids.js";
import { createLogger } from "../../src/server/logger.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { receiveWebhooksOf, type WebhookReceiver } from "../helpers/webhook-receiver.js";

/** A server whose log lines are kept, parsed. */
async function loggedServer(env: Record<string, string> = {}) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line)) });
  const server = await startTestServer({ env, logger });
  return { server, calls: () => lines.filter((line) => line.msg === "call") };
}

function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("the access log", () => {
  let logged: Awaited<ReturnType<typeof loggedServer>>;
  beforeAll(async () => {
    logged = await loggedServer();
  });
  afterAll(() => logged?.server.stop());

  it("writes one info line per call: method name, code, duration, merchant and request id", async () => {
    const { server } = logged;
    const client = server.client(PaymentService);
    await client.listCustomers({}, { headers: { "x-request-id": "req-access-1" } });
    await expect(
      client.getCharge({ charge: newId("trx") }, { headers: { "x-request-id": "req-access-2" } }),
    ).rejects.toMatchObject({ code: Code.NotFound });
    const [ok, notFound] = ["req-access-1", "req-access-2"].map((id) =>
      logged.calls().filter((line) => line.requestId === id),
    );
    expect(ok).toEqual([
      expect.objectContaining({
        level: 30,
        method: "payments.v1.PaymentService/ListCustomers",
        code: "ok",
        merchantId: server.merchant.merchant_id,
        ms: expect.any(Number),
      }),
    ]);
    expect(notFound).toEqual([
      expect.objectContaining({
        level: 30,
        method: "payments.v1.PaymentService/GetCharge",
        code: "not_found",
        merchantId: server.merchant.merchant_id,
        message: expect.stringContaining("not found"),
      }),
    ]);
  });

  it("samples successful calls at ACCESS_LOG_SAMPLE_RATE and keeps every failure", async () => {
    const sampled = await loggedServer({ ACCESS_LOG_SAMPLE_RATE: "0" });
    try {
      const client = sampled.server.client(PaymentService);
      for (let i = 0; i < 5; i++) await client.listCustomers({});
      await expect(client.getCharge({ charge: newId("trx") })).rejects.toMatchObject({ code: Code.NotFound });
      expect(sampled.calls().map((line) => line.code)).toEqual(["not_found"]);
    } finally {
      await sampled.server.stop();
    }
  });
});

describe("business metrics", () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    server = await startTestServer();
    receiver = await receiveWebhooksOf(server.ctx, server.merchant);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it("counts charges by outcome and ErrorType, times bank calls, job runs and webhook deliveries", async () => {
    const client = server.client(PaymentService);
    const paying = await seedActiveCustomer(server, { balance: 10_000 });
    const broke = await seedActiveCustomer(server, { balance: 0 });
    await client.createOffSessionPayment({ customerId: paying.customerId, charge: { price: 1000 } });
    await expect(
      client.createOffSessionPayment({ customerId: broke.customerId, charge: { price: 1000 } }),
    ).rejects.toThrow();
    const { chargeId } = await client.createOffSessionPaymentAsync({
      customerId: paying.customerId,
      charge: { price: 500 },
    });
    // The async charge's event delivered: its job has run.
    await receiver.waitFor((r) => r.delivered.some((delivery) => delivery.raw.includes(chargeId)));

    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(text, 'furikomi_charges_total{outcome="success",error_type="none"}')).toBe(2);
    const failures = text.split("\n").filter((line) => line.startsWith('furikomi_charges_total{outcome="failure"'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/error_type="ERROR_TYPE_[A-Z_]+"\} 1$/);
    expect(sample(text, 'furikomi_bank_call_duration_seconds_count{operation="debit",result="ok"}')).toBe(2);
    expect(sample(text, 'furikomi_bank_call_duration_seconds_count{operation="debit",result="refused"}')).toBe(1);
    expect(sample(text, 'furikomi_job_runs_total{kind="async-charge",outcome="done"}')).toBe(1);
    expect(
      sample(text, 'furikomi_webhook_delivery_duration_seconds_count{outcome="delivered"}'),
    ).toBeGreaterThanOrEqual(1);
  });
});
