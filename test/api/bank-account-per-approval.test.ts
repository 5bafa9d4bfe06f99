import { ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ChargeStatus, ErrorType, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { parseAccount } from "../../src/domain/bank-account.js";
import { runOffSessionCharge } from "../../src/flows/off-session.js";
import { unseal } from "../../src/storage/sealed.js";
import { seedConsignor } from "../helpers/fixtures.js";
import { createPayment, freshEmail } from "../helpers/on-session.js";
import { expectReconciled } from "../helpers/reconcile.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// 2026-03-10 10:00 JST, a Tuesday.
const clockStart = new Date("2026-03-10T01:00:00Z");
const dayMs = 24 * 3_600_000;

/**
 * Issue 18: a bank account per approved account. A customer with an active contract pays a one-off
 * charge from another account: each account is debited for its own charges, counts its own limits
 * (bank 9903: ¥30,000 a day and a month) and is credited its own refunds.
 */
describe("a customer's second account, approved on a one-off payment", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clockStart, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  const pay = async (init: Parameters<typeof createPayment>[1], accountNumber: string) => {
    const created = await createPayment(server, init);
    const done = await server
      .client(SandboxService)
      .completePayment({ paymentLinkUrl: created.paymentLink!.url, bankCode: "9903", accountNumber });
    return { chargeId: created.charge!.chargeId, done };
  };

  const chargeNow = async (customerId: string, price: number) => {
    try {
      const { charge } = await server.client(PaymentService).createOffSessionPayment({ customerId, charge: { price } });
      return { status: charge?.chargeStatus, chargeId: charge?.chargeId, reason: undefined };
    } catch (thrown) {
      return { status: undefined, reason: ConnectError.from(thrown).findDetails(ErrorInfoSchema)[0]?.reason };
    }
  };

  /** Each account of the customer, masked, with the references and amounts on its ledger. */
  const accountsOf = async (customerId: string) =>
    (await server.client(SandboxService).getBankAccount({ customerId })).accounts.map((account) => ({
      number: account.accountNumber,
      ledger: account.ledger.map((entry) => [entry.reference, Number(entry.amount)]),
    }));

  it("debits the one-off from its own account, the contract's charges from the contract's, limits and refunds per account", async () => {
    const email = freshEmail("two-accounts");
    const contract = await pay({ buyer: { email }, charge: { price: 20_000, description: "初回" } }, "1111111");
    expect(contract.done.chargeStatus).toBe(ChargeStatus.SUCCESS);
    const customerId = contract.done.customerId;

    // ¥20,000 more the same day: over ¥30,000 had the limit followed the customer; it follows the account.
    server.clock.advance(60_000);
    const oneOff = await pay(
      { buyer: { email }, charge: { price: 20_000, description: "単発", oneOffCharge: true } },
      "2222222",
    );
    expect(oneOff.done.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect(await accountsOf(customerId)).toEqual([
      { number: "****111", ledger: [[contract.chargeId, -20_000]] },
      { number: "****222", ledger: [[oneOff.chargeId, -20_000]] },
    ]);

    // The contract still debits the account it was approved with, up to that account's ¥30,000.
    const next = await chargeNow(customerId, 5_000);
    expect(next.status).toBe(ChargeStatus.SUCCESS);
    expect((await chargeNow(customerId, 10_000)).reason).toBe("ERROR_TYPE_PAYMENT_CHARGE_OVER_LIMIT");
    const current = (await server.client(SandboxService).getBankAccount({ customerId })).account;
    expect(current?.accountNumber).toBe("****111");
    expect(current?.balance).toBe(1_000_000n - 25_000n);

    // A refund of the one-off goes back to the account it was paid from.
    server.clock.advance(dayMs);
    const payments = server.client(PaymentService);
    const { refund } = await payments.refund({ chargeId: oneOff.chargeId, amount: 5_000 });
    server.clock.advance(4 * dayMs);
    await server.client(SandboxService).settleRefunds({ refundId: refund!.refundId });
    expect((await payments.getRefund({ refundId: refund!.refundId })).refund?.status).toBe(RefundStatus.SUCCEEDED);
    expect(await accountsOf(customerId)).toEqual([
      {
        number: "****111",
        ledger: [
          [contract.chargeId, -20_000],
          [next.chargeId, -5_000],
        ],
      },
      {
        number: "****222",
        ledger: [
          [oneOff.chargeId, -20_000],
          [refund!.refundId, 5_000],
        ],
      },
    ]);
    await expectReconciled(server);
  });

  it("the same account approved again is the same account: its limits count both payments", async () => {
    const email = freshEmail("same-account");
    const contract = await pay({ buyer: { email }, charge: { price: 20_000 } }, "3333333");
    expect(contract.done.chargeStatus).toBe(ChargeStatus.SUCCESS);
    const again = await pay({ buyer: { email }, charge: { price: 20_000, oneOffCharge: true } }, "3333333");
    expect(again.done.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect(again.done.error?.code).toBe(ErrorType.PAYMENT_CHARGE_OVER_LIMIT);
    expect(again.done.error?.message).toContain("¥30,000 per day");
    expect((await accountsOf(contract.done.customerId)).map((account) => account.number)).toEqual(["****333"]);
    await expectReconciled(server);
  });
});

/** The Zengin file exchange takes each debit from the charge's account too. */
describe("a customer's second account, with the Zengin file exchange", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      clockStart,
      env: { BANK_CONNECTOR: "zengin", ZENGIN_SIMULATED_BANK: "off", WORKERS: "off" },
    });
    await seedConsignor(server);
  });
  afterAll(() => server?.stop());

  it("files the contract's debits on the contract's account and the one-off on its own", async () => {
    const email = freshEmail("zengin-accounts");
    const sandbox = server.client(SandboxService);
    const contract = await createPayment(server, { buyer: { email }, charge: { price: 2_000 } });
    const signedUp = await sandbox.completePayment({
      paymentLinkUrl: contract.paymentLink!.url,
      accountNumber: "4444444",
    });
    const oneOff = await createPayment(server, { buyer: { email }, charge: { price: 3_000, oneOffCharge: true } });
    await sandbox.completePayment({ paymentLinkUrl: oneOff.paymentLink!.url, accountNumber: "5555555" });
    const next = await server
      .client(PaymentService)
      .createOffSessionPaymentAsync({ customerId: signedUp.customerId, charge: { price: 4_000 } });
    await runOffSessionCharge(server.ctx, next.chargeId, 1);

    const filed = await server.ctx.tx.db
      .selectFrom("zengin_debits")
      .select(["reference", "account_sealed"])
      .orderBy("created_at")
      .orderBy("reference")
      .execute();
    const numberOf = (sealed: string) => parseAccount(unseal(sealed)).accountNumber;
    expect(Object.fromEntries(filed.map((row) => [row.reference, numberOf(row.account_sealed)]))).toEqual({
      [contract.charge!.chargeId]: "4444444",
      [oneOff.charge!.chargeId]: "5555555",
      [next.chargeId]: "4444444",
    });
    await expectReconciled(server);
  });
});
