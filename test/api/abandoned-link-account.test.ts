import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus, ContractStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { createPayment, freshEmail } from "../helpers/on-session.js";
import { dialects, startTestServer, type TestServer } from "../helpers/test-server.js";

// 2026-03-10 10:00 JST, a Tuesday.
const clockStart = new Date("2026-03-10T01:00:00Z");

/** Issue 18, defect 7: an account takes effect only when its payment is approved. */
describe.each(dialects)("a second link abandoned after its account step, on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, clockStart, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  it.each([
    ["a contract link", { price: undefined, oneOff: false }],
    ["a one-off payment", { price: 500, oneOff: true }],
  ])("%s left to expire: the active contract keeps debiting its own account under its own limit", async (_, second) => {
    const email = freshEmail("relink");
    const sandbox = server.client(SandboxService);
    const payments = server.client(PaymentService);
    // The contract is approved with an account at the Sandbox Second Saturday Bank (¥30,000 a day).
    const first = await createPayment(server, { buyer: { email }, charge: { price: 1_000 } });
    const approved = await sandbox.completePayment({
      paymentLinkUrl: first.paymentLink!.url,
      bankCode: "9903",
      accountNumber: "1111111",
    });
    expect(approved.chargeStatus).toBe(ChargeStatus.SUCCESS);
    const customerId = approved.customerId;
    expect((await payments.getContract({ contract: approved.contractId })).contract?.status).toBe(
      ContractStatus.ACTIVATED,
    );

    // A second link for the same e-mail: the account step done with another bank, then abandoned.
    const relink = await createPayment(server, {
      buyer: { email },
      charge: second.price === undefined ? undefined : { price: second.price, oneOffCharge: second.oneOff },
    });
    await sandbox.completePayment({
      paymentLinkUrl: relink.paymentLink!.url,
      bankCode: "0001",
      accountNumber: "2222222",
      approve: false,
    });
    await sandbox.expirePaymentLink({ paymentLinkUrl: relink.paymentLink!.url });

    // The abandoned link opened no account: the customer has the contract's (masked) and no other.
    const { account, accounts } = await sandbox.getBankAccount({ customerId });
    expect(account?.accountNumber).toBe("****111");
    expect(accounts.map((a) => a.accountNumber)).toEqual(["****111"]);
    const charge = (price: number) =>
      payments.createOffSessionPaymentAsync({ customerId, charge: { price } }).then(async ({ chargeId }) => {
        await server.jobs.drain();
        return (await payments.getCharge({ charge: chargeId })).charge!;
      });
    expect((await charge(20_000)).chargeStatus).toBe(ChargeStatus.SUCCESS);
    const overLimit = await charge(20_000);
    expect(overLimit.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect(overLimit.error?.message).toMatch(/30,000/);
  });
});
