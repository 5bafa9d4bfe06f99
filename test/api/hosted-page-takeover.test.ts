import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { ledgerOf } from "../../src/storage/bank-accounts.js";
import { createPayment, eventsAbout, freshEmail, tokenOf } from "../helpers/on-session.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { dialects, startTestServer, type TestServer } from "../helpers/test-server.js";

// 2026-03-10 10:00 JST, a Tuesday.
const clockStart = new Date("2026-03-10T01:00:00Z");

/** Issue 18, defect 6 on the hosted page: a second tab takes over a stale approval. */
describe.each(dialects)("a second tab taking over a stale approval, on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, clockStart, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  it("the first tab's call, landing after funds arrived, gets the refusal the charge failed with", async () => {
    const email = freshEmail("tabs");
    const created = await createPayment(server, { buyer: { email }, charge: { price: 5_000 } });
    const sandbox = server.client(SandboxService);
    const steps = await sandbox.completePayment({
      paymentLinkUrl: created.paymentLink!.url,
      initialBalance: 0n,
      approve: false,
    });
    const customerId = steps.customerId;
    const chargeId = created.charge!.chargeId;
    const page = server.client(HostedPageService);
    const token = tokenOf(created.paymentLink!.url);

    // Tab 1's debit is slow at the bank; its claim goes stale and tab 2 takes the approval over.
    const bank = server.ctx.bank;
    const debit = bank.debit.bind(bank);
    let entered!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => (entered = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    bank.debit = async (request) => {
      bank.debit = debit;
      entered();
      await released;
      return debit(request);
    };
    const firstTab = page.approvePayment({ token });
    await reached;
    server.clock.advance(3 * 60_000);
    await page.approvePayment({ token });
    const payments = server.client(PaymentService);
    expect((await payments.getCharge({ charge: chargeId })).charge?.chargeStatus).toBe(ChargeStatus.FAILURE);

    await sandbox.configureBankAccount({ customerId, balance: 10_000n });
    release();
    await firstTab;
    expect((await payments.getCharge({ charge: chargeId })).charge?.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect(await ledgerOf(server.ctx.tx.db, customerId)).toEqual([]);
    expect((await eventsAbout(server, chargeId)).map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_FAIL"]);
    await expectReconciled(server);
  });
});
