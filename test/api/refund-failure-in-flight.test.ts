import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { settlePendingRefund } from "../../src/flows/refund.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { dialects, startTestServer, type TestServer } from "../helpers/test-server.js";

// 2026-03-10 10:00 JST, a Tuesday.
const clockStart = new Date("2026-03-10T01:00:00Z");
const dayMs = 24 * 3_600_000;

/** Issue 18, defect 5: the recorded refund outcome and the bank's ledger always agree. */
describe.each(dialects)("a refund forced to fail while its bank transfer is in flight, on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, clockStart, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  it("reads FAILED and the credit that landed afterwards is reversed: a second refund pays once", async () => {
    const { customerId } = await seedActiveCustomer(server, { balance: 10_000 });
    const payments = server.client(PaymentService);
    const sandbox = server.client(SandboxService);
    const charge = (await payments.createOffSessionPayment({ customerId, charge: { price: 5_000 } })).charge!;
    expect(charge.chargeStatus).toBe(ChargeStatus.SUCCESS);
    server.clock.advance(dayMs);
    const { refund } = await payments.refund({ chargeId: charge.chargeId, amount: 2_000 });
    server.clock.advance(4 * dayMs);

    // The settlement's bank call takes 300 ms; the forced failure is recorded meanwhile.
    await sandbox.configureBankAccount({ customerId, latencyMs: 300 });
    const inFlight = settlePendingRefund(server.ctx, refund!.refundId);
    const [forced] = (await sandbox.settleRefunds({ refundId: refund!.refundId, fail: true })).refunds;
    expect(forced.status).toBe(RefundStatus.FAILED);
    await inFlight;
    await sandbox.configureBankAccount({ customerId, latencyMs: 0 });

    expect((await payments.getRefund({ refundId: refund!.refundId })).refund?.status).toBe(RefundStatus.FAILED);
    let account = (await sandbox.getBankAccount({ customerId })).account!;
    expect(account.balance).toBe(5_000n);

    const again = (await payments.refund({ chargeId: charge.chargeId, amount: 2_000 })).refund!;
    server.clock.advance(4 * dayMs);
    await sandbox.settleRefunds({ refundId: again.refundId });
    expect((await payments.getRefund({ refundId: again.refundId })).refund?.status).toBe(RefundStatus.SUCCEEDED);
    account = (await sandbox.getBankAccount({ customerId })).account!;
    expect(account.balance).toBe(7_000n);
  });
});
