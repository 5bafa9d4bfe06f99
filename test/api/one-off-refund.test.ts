import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { ledgerOf } from "../../src/storage/bank-accounts.js";
import { createPayment, freshEmail, payStepByStep } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// 2026-03-10 10:00 JST, a Tuesday.
const clockStart = new Date("2026-03-10T01:00:00Z");
const dayMs = 24 * 3_600_000;

/** Issue 18, defect 1: a one-off charge keeps who paid, so a refund transfer reaches that account. */
describe("refund of a one-off charge", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clockStart, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  it("a partial refund the next day settles to the payer's account; the merchant still sees no customer id", async () => {
    const email = freshEmail("oneoff");
    const created = await createPayment(server, {
      buyer: { email },
      charge: { price: 3000, description: "one-off", oneOffCharge: true },
    });
    await payStepByStep(server, created.paymentLink!.url, { email });
    const chargeId = created.charge!.chargeId;
    const payments = server.client(PaymentService);
    const paid = (await payments.getCharge({ charge: chargeId })).charge!;
    expect(paid.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect(paid.customerId).toBe("");

    server.clock.advance(dayMs);
    const { refund } = await payments.refund({ chargeId, amount: 1000, reason: "one item back" });
    server.clock.advance(4 * dayMs);
    await server.client(SandboxService).settleRefunds({ refundId: refund!.refundId });
    const after = (await payments.getRefund({ refundId: refund!.refundId })).refund!;
    expect(after.status).toBe(RefundStatus.SUCCEEDED);
    const charge = (await payments.getCharge({ charge: chargeId })).charge!;
    expect(charge.refundedAmount).toBe(1000);
    expect(charge.customerId).toBe("");

    const payer = await server.ctx.tx.db
      .selectFrom("customers")
      .select("id")
      .where("email_normalized", "=", email)
      .executeTakeFirstOrThrow();
    const ledger = await ledgerOf(server.ctx.tx.db, payer.id);
    expect(ledger.map((row) => [row.reference, row.amount])).toEqual([
      [chargeId, -3000],
      [refund!.refundId, 1000],
    ]);
  });
});
