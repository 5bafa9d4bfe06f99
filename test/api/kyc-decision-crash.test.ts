import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus, KycStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { KycOutcome, KycReviewMode, SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { ledgerOf } from "../../src/storage/bank-accounts.js";
import { createPayment, eventsAbout, freshEmail } from "../helpers/on-session.js";
import { dialects, startTestServer, type TestServer } from "../helpers/test-server.js";

// 2026-03-10 10:00 JST, a Tuesday.
const clockStart = new Date("2026-03-10T01:00:00Z");
const minuteMs = 60_000;

/** Issue 18, defect 8: the approval held for KYC is carried by a durable job written with the decision. */
describe.each(dialects)("a crash right after a KYC decision, on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, clockStart, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  it("the held debit still happens: charge SUCCESS, one debit, CHARGE_SUCCESS", async () => {
    const sandbox = server.client(SandboxService);
    const payments = server.client(PaymentService);
    await sandbox.configureKycReview({ mode: KycReviewMode.MANUAL });
    const email = freshEmail("kyc-crash");
    const created = await createPayment(server, { buyer: { email, forceKyc: true }, charge: { price: 2_000 } });
    const held = await sandbox.completePayment({ paymentLinkUrl: created.paymentLink!.url, kyc: KycOutcome.PENDING });
    expect(held.chargeStatus).toBe(ChargeStatus.WAITING_EKYC);
    const chargeId = created.charge!.chargeId;
    // The link's own job has run its course while the approval waited.
    server.clock.advance(91 * minuteMs);
    await server.jobs.drain();

    // The process dies while the resumed debit is at the bank.
    const bank = server.ctx.bank;
    const debit = bank.debit.bind(bank);
    bank.debit = async () => {
      bank.debit = debit;
      throw new Error("killed while the debit was at the bank");
    };
    await expect(sandbox.decideKyc({ customerId: held.customerId, decision: KycStatus.APPROVED })).rejects.toThrow();
    expect((await payments.getCharge({ charge: chargeId })).charge?.chargeStatus).toBe(ChargeStatus.WAITING_EKYC);

    server.clock.advance(3 * minuteMs);
    await server.jobs.drain();
    expect((await payments.getCharge({ charge: chargeId })).charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect(
      (await ledgerOf(server.ctx.tx.db, held.customerId)).map((row) => [row.reference, Number(row.amount)]),
    ).toEqual([[chargeId, -2_000]]);
    expect((await eventsAbout(server, chargeId)).map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
  });
});
