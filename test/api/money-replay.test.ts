import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { signedInUser } from "../helpers/dashboard.js";
import { freshEmail, redirect } from "../helpers/on-session.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";

/**
 * Every money-moving method, API and dashboard, sent three times with one idempotency key:
 * one thing is created, and the repeats answer the first response (issue 18, defect 3).
 */
describe("replay of every money-moving call with the same key", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clockStart: new Date("2026-03-10T01:00:00Z") });
  });
  afterAll(() => server?.stop());

  const count = async (table: "charges" | "refunds" | "payment_links", column: string, value: string) =>
    Number(
      (
        await server.ctx.tx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .where(column as never, "=", value as never)
          .executeTakeFirstOrThrow()
      ).n,
    );

  async function paidCharge(amount = 1000): Promise<string> {
    const { customerId } = await seedActiveCustomer(server);
    const { charge } = await server
      .client(PaymentService)
      .createOffSessionPayment({ customerId, charge: { price: amount, description: "tea" } });
    expect(charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    return charge!.chargeId;
  }

  /** Sends `call` three times and returns the three answers as JSON. */
  async function thrice<T>(call: () => Promise<T>): Promise<T[]> {
    const answers: T[] = [];
    for (let i = 0; i < 3; i++) answers.push(await call());
    return answers;
  }

  it("DashboardService.RefundCharge: the key inside refund makes one refund", async () => {
    const chargeId = await paidCharge();
    const ops = await signedInUser(server);
    const answers = await thrice(() =>
      ops.client.refundCharge({
        refund: { chargeId, amount: 300, reason: "damaged", idempotencyKey: "dash-refund-1" },
      }),
    );
    expect(await count("refunds", "charge_id", chargeId)).toBe(1);
    expect(new Set(answers.map((a) => a.result?.refund?.refundId)).size).toBe(1);
    expect(answers[2].result?.charge?.refundableAmount).toBe(700);
    // The same key with another amount is another request: refused, nothing refunded.
    await expect(
      ops.client.refundCharge({ refund: { chargeId, amount: 200, idempotencyKey: "dash-refund-1" } }),
    ).rejects.toThrow(/already used with a different request/);
    expect(await count("refunds", "charge_id", chargeId)).toBe(1);
  });

  it("PaymentService.Refund, over RPC and over POST /v1/refund with the header", async () => {
    const chargeId = await paidCharge();
    await thrice(() => server.client(PaymentService).refund({ chargeId, amount: 100, idempotencyKey: "api-refund-1" }));
    expect(await count("refunds", "charge_id", chargeId)).toBe(1);
    const viaHttp = await thrice(async () => {
      const res = await api(server, "/v1/refund", {
        method: "POST",
        headers: { "idempotency-key": "http-refund-1" },
        json: { chargeId, amount: 100 },
      });
      expect(res.status).toBe(200);
      return res.headers.get("idempotent-replayed");
    });
    expect(viaHttp).toEqual([null, "true", "true"]);
    expect(await count("refunds", "charge_id", chargeId)).toBe(2);
  });

  it("CreateOffSessionPayment, CreateOffSessionPaymentAsync and SandboxService.Withdraw", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const payments = server.client(PaymentService);
    const sync = await thrice(() =>
      payments.createOffSessionPayment({ customerId, charge: { price: 500 }, idempotencyKey: "sync-1" }),
    );
    const async = await thrice(() =>
      payments.createOffSessionPaymentAsync({ customerId, charge: { price: 500 }, idempotencyKey: "async-1" }),
    );
    const withdrawn = await thrice(() =>
      server
        .client(SandboxService)
        .withdraw({ merchantCustomerId: customerId, charge: { price: 500 }, idempotencyKey: "withdraw-1" }),
    );
    expect(new Set(sync.map((a) => a.charge?.chargeId)).size).toBe(1);
    expect(new Set(async.map((a) => a.chargeId)).size).toBe(1);
    expect(new Set(withdrawn.map((a) => a.charge?.chargeId)).size).toBe(1);
    expect(await count("charges", "customer_id", customerId)).toBe(3);
  });

  it("CreateOnSessionPayment: one charge and one link", async () => {
    const email = freshEmail();
    const answers = await thrice(() =>
      server.client(PaymentService).createOnSessionPayment({
        buyer: { email },
        charge: { price: 1200 },
        redirect,
        idempotencyKey: "on-session-1",
      }),
    );
    expect(new Set(answers.map((a) => a.paymentLink?.url)).size).toBe(1);
    expect(await count("charges", "id", answers[0].charge!.chargeId)).toBe(1);
    const links = await server.ctx.tx.db.selectFrom("payment_links").select("id").where("email", "=", email).execute();
    expect(links).toHaveLength(1);
  });
});
