import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { ledgerOf } from "../../src/storage/bank-accounts.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { dialects, startTestServer, type TestServer } from "../helpers/test-server.js";

// 2026-03-10 10:00 JST, a Tuesday: before the 15:00 cutoff, so a full refund cancels.
const clockStart = new Date("2026-03-10T01:00:00Z");

/** Issue 18, defect 4: a same-day cancellation gives the money back and frees the limit. */
describe.each(dialects)("same-day cancellation on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, clockStart, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  it("reverses the booked debit in the cancelling transaction; the ¥30,000 daily limit is free again", async () => {
    // Sandbox Second Saturday Bank (9903): ¥30,000 a day and a month.
    const { customerId } = await seedActiveCustomer(server, { bankCode: "9903", balance: 100_000 });
    const payments = server.client(PaymentService);
    const first = (await payments.createOffSessionPayment({ customerId, charge: { price: 30_000 } })).charge!;
    expect(first.chargeStatus).toBe(ChargeStatus.SUCCESS);

    const { refund, charge } = await payments.refund({ chargeId: first.chargeId });
    expect(refund?.status).toBe(RefundStatus.SUCCEEDED);
    expect(charge?.chargeStatus).toBe(ChargeStatus.CANCELLED);
    const ledger = await ledgerOf(server.ctx.tx.db, customerId);
    expect(ledger.map((row) => [row.reference, Number(row.amount), Number(row.balanceAfter)])).toEqual([
      [first.chargeId, -30_000, 70_000],
      [`${first.chargeId}/reversal`, 30_000, 100_000],
    ]);
    const account = await server.client(SandboxService).getBankAccount({ customerId });
    expect(account.account?.balance).toBe(100_000n);

    const second = (await payments.createOffSessionPayment({ customerId, charge: { price: 30_000 } })).charge!;
    expect(second.chargeStatus).toBe(ChargeStatus.SUCCESS);
    // And the limit still holds for what was really taken.
    await expect(payments.createOffSessionPayment({ customerId, charge: { price: 1 } })).rejects.toThrow(/limit/i);
  });
});
