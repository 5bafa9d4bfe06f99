import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AsyncStatus, ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { runOffSessionCharge } from "../../src/flows/off-session.js";
import { ledgerOf, ledgerOfAccount } from "../../src/storage/bank-accounts.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { eventsAbout } from "../helpers/on-session.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { dialects, startTestServer, type TestServer } from "../helpers/test-server.js";

// 2026-03-10 10:00 JST, a Tuesday.
const clockStart = new Date("2026-03-10T01:00:00Z");

/** Issue 18, defect 6: one bank reference gets one answer, and a settled charge is never contradicted. */
describe.each(dialects)("two workers asking the bank about one charge, on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, clockStart, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  it("the call still in flight gets the refusal the charge failed with, not a debit once funds arrive", async () => {
    const { customerId } = await seedActiveCustomer(server, { balance: 0 });
    const sandbox = server.client(SandboxService);
    const payments = server.client(PaymentService);
    const { chargeId, requestId } = await payments.createOffSessionPaymentAsync({
      customerId,
      charge: { price: 5_000 },
    });

    // The first worker's bank call is slow (held at a gate until released); its lease lapses and a
    // second worker takes the job over.
    const gate = slowFirstDebit(server);
    const slow = runOffSessionCharge(server.ctx, chargeId, 1);
    await gate.reached;
    await runOffSessionCharge(server.ctx, chargeId, 2);
    expect((await payments.getCharge({ charge: chargeId })).charge?.chargeStatus).toBe(ChargeStatus.FAILURE);
    // Funds arrive while the first call is still at the bank.
    await sandbox.configureBankAccount({ customerId, balance: 10_000n });
    gate.release();
    await slow;

    expect((await payments.getCharge({ charge: chargeId })).charge?.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect((await payments.getAsyncPaymentRequest({ requestId })).request?.status).toBe(AsyncStatus.FAILED);
    expect(await ledgerOf(server.ctx.tx.db, customerId)).toEqual([]);
    expect((await sandbox.getBankAccount({ customerId })).account?.balance).toBe(10_000n);
    expect((await eventsAbout(server, chargeId)).map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_FAIL"]);
  });

  it("asked again by anyone, the same reference answers the same, success included", async () => {
    const { customerId, accountId } = await seedActiveCustomer(server, { balance: 1_000 });
    const ask = (reference: string, amount: number) =>
      server.ctx.bank.debit({ merchantId: server.merchant.merchant_id, accountId, amount, reference, at: clockStart });
    const refused = await ask("trx-answer-1", 2_000);
    expect(refused).toMatchObject({ ok: false, retryable: false });
    await server.client(SandboxService).configureBankAccount({ customerId, balance: 5_000n });
    expect(await ask("trx-answer-1", 2_000)).toEqual(refused);
    const both = await Promise.all([ask("trx-answer-2", 2_000), ask("trx-answer-2", 2_000)]);
    expect(both).toEqual([{ ok: true }, { ok: true }]);
    expect((await ledgerOf(server.ctx.tx.db, customerId)).map((row) => row.reference)).toEqual(["trx-answer-2"]);
  });

  it("a ¥20,000 charge in flight while the clock crosses midnight is debited once and succeeds, never OVER_LIMIT yet debited", async () => {
    // Bank 9903: ¥30,000 a day and a month. ¥20,000 was debited on 31 March; the next ¥20,000 fits
    // only from 1 April.
    const moveTo = (at: Date) => server.clock.advance(at.getTime() - server.clock.now().getTime());
    moveTo(new Date("2026-03-31T10:00:00+09:00"));
    const { customerId, accountId } = await seedActiveCustomer(server, { bankCode: "9903" });
    const payments = server.client(PaymentService);
    const today = (await payments.createOffSessionPayment({ customerId, charge: { price: 20_000 } })).charge!;
    expect(today.chargeStatus).toBe(ChargeStatus.SUCCESS);
    moveTo(new Date("2026-03-31T23:59:59.999+09:00"));
    const { chargeId, requestId } = await payments.createOffSessionPaymentAsync({
      customerId,
      charge: { price: 20_000 },
    });

    // The first worker asks at 23:59:59.999 JST but reaches the bank late; the clock crosses
    // midnight and a second worker takes over, asking at 00:00.
    const gate = slowFirstDebit(server);
    const slow = runOffSessionCharge(server.ctx, chargeId, 1);
    await gate.reached;
    server.clock.advance(1);
    await runOffSessionCharge(server.ctx, chargeId, 2);
    gate.release();
    await slow;

    expect((await payments.getCharge({ charge: chargeId })).charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect((await payments.getAsyncPaymentRequest({ requestId })).request?.status).toBe(AsyncStatus.SUCCEEDED);
    expect((await ledgerOfAccount(server.ctx.tx.db, accountId)).map((row) => [row.reference, row.amount])).toEqual([
      [today.chargeId, -20_000],
      [chargeId, -20_000],
    ]);
    expect((await eventsAbout(server, chargeId)).map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
    await expectReconciled(server);
  });
});

/** Holds the next debit call before it reaches the bank, as a slow bank would, until released. */
function slowFirstDebit(server: TestServer): { reached: Promise<void>; release: () => void } {
  const bank = server.ctx.bank;
  const debit = bank.debit.bind(bank);
  let release = () => {};
  let entered = () => {};
  const reached = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  bank.debit = async (request) => {
    if (!first) return debit(request);
    first = false;
    entered();
    await released;
    bank.debit = debit;
    return debit(request);
  };
  return { reached, release };
}
