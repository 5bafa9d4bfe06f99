import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { freshEmail, redirect } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

const clockStart = new Date("2026-03-10T01:00:00Z");

/**
 * Issue 18, defect 2: every method that creates something binds its key to it in the same
 * transaction, so a retry after a crash between the commit and the stored answer answers with
 * what exists. The crash is left as it leaves the key: in flight, no answer, its lease lapsed.
 */
describe("a retry after a crash between the commit and the stored answer", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clockStart, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  async function crashBeforeAnswer(key: string): Promise<void> {
    await server.ctx.tx.write((trx) =>
      trx
        .updateTable("idempotency_keys")
        .set({
          state: "in_flight",
          response_json: "",
          http_status: 0,
          lease_until: new Date(server.clock.now().getTime() - 1).toISOString(),
        })
        .where("merchant_id", "=", server.merchant.merchant_id)
        .where("idempotency_key", "=", key)
        .execute(),
    );
  }

  it("CreateOnSessionPayment: the same link and charge, no second link for the buyer", async () => {
    const email = freshEmail("crash");
    const request = { buyer: { email }, charge: { price: 1_500 }, redirect, idempotencyKey: "crash-on-session" };
    const payments = server.client(PaymentService);
    const first = await payments.createOnSessionPayment(request);
    await crashBeforeAnswer("crash-on-session");
    const retried = await payments.createOnSessionPayment(request);
    expect(retried.charge?.id).toBe(first.charge?.id);
    expect(retried.charge?.chargeId).toBe(first.charge?.chargeId);
    expect(retried.paymentLink?.url).toBe(first.paymentLink?.url);
    const links = await server.ctx.tx.db.selectFrom("payment_links").select("id").where("email", "=", email).execute();
    expect(links).toHaveLength(1);
  });

  it("CreateOffSessionPaymentAsync, CreateOffSessionPayment and Refund: the same charge or refund", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const payments = server.client(PaymentService);
    const asyncRequest = { customerId, charge: { price: 700 }, idempotencyKey: "crash-async" };
    const started = await payments.createOffSessionPaymentAsync(asyncRequest);
    await crashBeforeAnswer("crash-async");
    expect((await payments.createOffSessionPaymentAsync(asyncRequest)).chargeId).toBe(started.chargeId);

    const syncRequest = { customerId, charge: { price: 900 }, idempotencyKey: "crash-sync" };
    const paid = (await payments.createOffSessionPayment(syncRequest)).charge!;
    expect(paid.chargeStatus).toBe(ChargeStatus.SUCCESS);
    await crashBeforeAnswer("crash-sync");
    expect((await payments.createOffSessionPayment(syncRequest)).charge?.chargeId).toBe(paid.chargeId);

    const refundRequest = { chargeId: paid.chargeId, amount: 100, idempotencyKey: "crash-refund" };
    const refunded = (await payments.refund(refundRequest)).refund!;
    await crashBeforeAnswer("crash-refund");
    expect((await payments.refund(refundRequest)).refund?.refundId).toBe(refunded.refundId);
    const charges = await server.ctx.tx.db
      .selectFrom("charges")
      .select("id")
      .where("customer_id", "=", customerId)
      .execute();
    expect(charges).toHaveLength(2);
  });
});
