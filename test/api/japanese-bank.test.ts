import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import {
  ChargeStatus,
  ErrorType,
  KycMethod,
  KycStatus,
  MandateVerification,
  RefundStatus,
} from "../../gen/payments/v1/enums_pb.js";
import { PaymentErrorSchema } from "../../gen/payments/v1/errors_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { setWebhookUrl } from "../../src/flows/merchants.js";
import { atBank, backLocation, bankPort, returnFromBank } from "../helpers/bank-site.js";
import { findPendingBankAccount } from "../../src/storage/bank-accounts.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { createPayment, freshEmail, latestCode, tokenOf } from "../helpers/on-session.js";
import { dialects, startTestServer, type TestServer } from "../helpers/test-server.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

// Background work runs only when a test drains it, so each step happens at the clock's time.
const manualWorkers = { WORKERS: "off" };

/** An instant given as JST wall time, e.g. jst("2026-03-13T16:00"). */
const jst = (local: string) => new Date(`${local}:00+09:00`);

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error) => ConnectError.from(error),
  );

/** Moves the server's clock to `at` (never backwards). */
function moveTo(server: TestServer, at: Date): void {
  const by = at.getTime() - server.clock.now().getTime();
  expect(by).toBeGreaterThanOrEqual(0);
  server.clock.advance(by);
}

async function chargeStatus(server: TestServer, chargeId: string): Promise<ChargeStatus | undefined> {
  return (await server.client(PaymentService).getCharge({ charge: chargeId })).charge?.chargeStatus;
}

/** A synchronous off-session charge of a seeded customer: the charge, or the error the call answered. */
async function chargeNow(server: TestServer, customerId: string, price: number) {
  try {
    const { charge } = await server
      .client(PaymentService)
      .createOffSessionPayment({ customerId, charge: { price, description: "お茶" } });
    return { charge, error: undefined, reason: undefined };
  } catch (thrown) {
    const error = ConnectError.from(thrown);
    return { charge: undefined, error, reason: error.findDetails(ErrorInfoSchema)[0]?.reason };
  }
}

describe.each([
  { bank: "9901", window: "daily 23:55–00:05", inside: "2026-03-10T23:58", ends: "2026-03-11T00:05" },
  {
    bank: "9902",
    window: "Sunday 23:55 to Monday 06:00 before the 1st Monday",
    inside: "2026-03-02T03:00",
    ends: "2026-03-02T06:00",
  },
  { bank: "9903", window: "2nd Saturday 21:00 to Sunday 07:00", inside: "2026-03-15T02:00", ends: "2026-03-15T07:00" },
  { bank: "9904", window: "closed 22:00–08:00", inside: "2026-03-10T23:00", ends: "2026-03-11T08:00" },
])("maintenance window of bank $bank ($window, JST)", ({ bank, inside, ends }) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ clockStart: jst(inside), env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  it("fails a charge with ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE; the engine's retry lands at the window's end and succeeds", async () => {
    const { customerId } = await seedActiveCustomer(server, { bankCode: bank });
    const payments = server.client(PaymentService);

    const error = await caught(payments.createOffSessionPayment({ customerId, charge: { price: 5000 } }));
    expect(error?.code).toBe(Code.Unavailable);
    expect(error?.findDetails(ErrorInfoSchema)[0]?.reason).toBe("ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE");

    const { chargeId } = await payments.createOffSessionPaymentAsync({ customerId, charge: { price: 5000 } });
    await server.jobs.drain();
    expect(await chargeStatus(server, chargeId)).toBe(ChargeStatus.PENDING);
    moveTo(server, new Date(jst(ends).getTime() - 1));
    await server.jobs.drain();
    expect(await chargeStatus(server, chargeId)).toBe(ChargeStatus.PENDING);
    server.clock.advance(1);
    await server.jobs.drain();
    expect(await chargeStatus(server, chargeId)).toBe(ChargeStatus.SUCCESS);
  });
});

describe("outside its windows a bank answers", () => {
  let server: TestServer;

  beforeAll(async () => {
    // Monday 9 March 2026 03:00 JST: the 2nd Monday, so bank 9902 has no window that night.
    server = await startTestServer({ clockStart: jst("2026-03-09T03:00"), env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  it("bank 9902 on the night before the 2nd Monday, and the default bank at any hour", async () => {
    for (const bankCode of ["9902", "0001"]) {
      const { customerId } = await seedActiveCustomer(server, { bankCode });
      expect((await chargeNow(server, customerId, 1000)).charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    }
  });
});

describe("CompletePayment at a simulated bank (bank_code)", () => {
  let server: TestServer;

  beforeAll(async () => {
    // Tuesday 10 March 2026, 23:00 JST: bank 9904 is closed, bank 9901's window starts at 23:55.
    server = await startTestServer({ clockStart: jst("2026-03-10T23:00"), env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  it("passes the bank's authentication step and meets the bank's hours on the on-session approval", async () => {
    const sandbox = server.client(SandboxService);
    const closed = await sandbox.completePayment({
      paymentLinkUrl: (await createPayment(server)).paymentLink!.url,
      bankCode: "9904",
    });
    expect(closed.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect((await server.client(PaymentService).getCharge({ charge: closed.chargeId })).charge?.error?.code).toBe(
      ErrorType.PAYMENT_GATEWAY_UNAVAILABLE,
    );
    const open = await sandbox.completePayment({
      paymentLinkUrl: (await createPayment(server)).paymentLink!.url,
      bankCode: "9901",
    });
    expect(open.chargeStatus).toBe(ChargeStatus.SUCCESS);
  });
});

describe("refund transfers settle on bank business days", () => {
  let server: TestServer;

  beforeAll(async () => {
    // Friday 13 March 2026, 14:00 JST.
    server = await startTestServer({ clockStart: jst("2026-03-13T14:00"), env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  it("a full refund on a Friday after the cutoff is a transfer that settles on Monday at 09:00 JST", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const { charge } = await chargeNow(server, customerId, 3000);
    moveTo(server, jst("2026-03-13T16:00"));
    const { refund } = await server.client(PaymentService).refund({ chargeId: charge!.chargeId });
    expect(refund).toMatchObject({ status: RefundStatus.PENDING, cancellation: false });

    moveTo(server, new Date(jst("2026-03-16T09:00").getTime() - 1));
    await server.jobs.drain();
    expect((await server.client(PaymentService).getRefund({ refundId: refund!.refundId })).refund?.status).toBe(
      RefundStatus.PENDING,
    );
    server.clock.advance(1);
    await server.jobs.drain();
    expect((await server.client(PaymentService).getRefund({ refundId: refund!.refundId })).refund?.status).toBe(
      RefundStatus.SUCCEEDED,
    );
    expect(await chargeStatus(server, charge!.chargeId)).toBe(ChargeStatus.REFUNDED);
  });
});

describe("a bank closing day added with BANK_EXTRA_HOLIDAYS", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      clockStart: jst("2026-03-13T16:00"),
      env: { ...manualWorkers, BANK_EXTRA_HOLIDAYS: "2026-03-16" },
    });
  });
  afterAll(async () => server?.stop());

  it("moves a Friday refund's settlement from Monday to Tuesday", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const { charge } = await chargeNow(server, customerId, 3000);
    const { refund } = await server.client(PaymentService).refund({ chargeId: charge!.chargeId, amount: 1000 });
    const status = async () =>
      (await server.client(PaymentService).getRefund({ refundId: refund!.refundId })).refund?.status;
    moveTo(server, new Date(jst("2026-03-17T09:00").getTime() - 1));
    await server.jobs.drain();
    expect(await status()).toBe(RefundStatus.PENDING);
    server.clock.advance(1);
    await server.jobs.drain();
    expect(await status()).toBe(RefundStatus.SUCCEEDED);
  });
});

describe("refund transfers across the year-end closing (12/31–1/3)", () => {
  let server: TestServer;

  beforeAll(async () => {
    // Wednesday 30 December 2026, 10:00 JST: the last business day of the year.
    server = await startTestServer({ clockStart: jst("2026-12-30T10:00"), env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  it("refunds asked for on 12/30 after the cutoff and on 12/31 both settle on Monday 4 January at 09:00 JST", async () => {
    const first = await seedActiveCustomer(server);
    const second = await seedActiveCustomer(server);
    const firstCharge = (await chargeNow(server, first.customerId, 8000)).charge!;
    const secondCharge = (await chargeNow(server, second.customerId, 8000)).charge!;
    const payments = server.client(PaymentService);

    moveTo(server, jst("2026-12-30T15:30"));
    const afterCutoff = (await payments.refund({ chargeId: firstCharge.chargeId })).refund!;
    expect(afterCutoff).toMatchObject({ status: RefundStatus.PENDING, cancellation: false });
    moveTo(server, jst("2026-12-31T11:00"));
    const onClosingDay = (await payments.refund({ chargeId: secondCharge.chargeId, amount: 1000 })).refund!;
    expect(onClosingDay.status).toBe(RefundStatus.PENDING);

    const statuses = async () =>
      Promise.all(
        [afterCutoff, onClosingDay].map(
          async (r) => (await payments.getRefund({ refundId: r.refundId })).refund?.status,
        ),
      );
    moveTo(server, new Date(jst("2027-01-04T09:00").getTime() - 1));
    await server.jobs.drain();
    expect(await statuses()).toEqual([RefundStatus.PENDING, RefundStatus.PENDING]);
    server.clock.advance(1);
    await server.jobs.drain();
    expect(await statuses()).toEqual([RefundStatus.SUCCEEDED, RefundStatus.SUCCEEDED]);
  });
});

describe("same-day cancellation ends at each bank's cutoff", () => {
  let server: TestServer;

  beforeAll(async () => {
    // Tuesday 10 March 2026, 10:00 JST.
    server = await startTestServer({ clockStart: jst("2026-03-10T10:00"), env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  it("15:00 JST at the default bank, 18:00 JST at bank 9902 (whose transfers settle two business days later)", async () => {
    const payments = server.client(PaymentService);
    const paid = async (bankCode: string) =>
      (await chargeNow(server, (await seedActiveCustomer(server, { bankCode })).customerId, 2000)).charge!.chargeId;
    const [defaultBefore, defaultAfter, lateBefore, lateAfter] = [
      await paid("0001"),
      await paid("0001"),
      await paid("9902"),
      await paid("9902"),
    ];
    const fullRefund = async (chargeId: string) => (await payments.refund({ chargeId })).refund!;

    moveTo(server, jst("2026-03-10T14:59"));
    server.clock.advance(59_999); // 14:59:59.999 JST
    expect((await fullRefund(defaultBefore)).cancellation).toBe(true);
    expect(await chargeStatus(server, defaultBefore)).toBe(ChargeStatus.CANCELLED);
    server.clock.advance(1); // 15:00 JST
    expect(await fullRefund(defaultAfter)).toMatchObject({ cancellation: false, status: RefundStatus.PENDING });
    expect((await fullRefund(lateBefore)).cancellation).toBe(true);

    moveTo(server, jst("2026-03-10T18:00"));
    const transfer = await fullRefund(lateAfter);
    expect(transfer).toMatchObject({ cancellation: false, status: RefundStatus.PENDING });
    // Bank 9902 settles two business days after the request: Thursday 12 March, 09:00 JST.
    moveTo(server, new Date(jst("2026-03-12T09:00").getTime() - 1));
    await server.jobs.drain();
    expect(await chargeStatus(server, lateAfter)).toBe(ChargeStatus.SUCCESS);
    expect(await chargeStatus(server, defaultAfter)).toBe(ChargeStatus.REFUNDED);
    server.clock.advance(1);
    await server.jobs.drain();
    expect(await chargeStatus(server, lateAfter)).toBe(ChargeStatus.REFUNDED);
  });
});

describe("Zengin account-debit result codes through magic account numbers", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  it("each code fails the charge with its ErrorType and a CHARGE_FAIL webhook naming the code", async () => {
    const expected = [
      { code: 1, errorType: "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS" },
      { code: 2, errorType: "ERROR_TYPE_PAYMENT_CUSTOMER_INACTIVE" },
      { code: 3, errorType: "ERROR_TYPE_PAYMENT_GATEWAY_FAILED" },
      { code: 4, errorType: "ERROR_TYPE_PAYMENT_CUSTOMER_INACTIVE" },
      { code: 9, errorType: "ERROR_TYPE_PAYMENT_GATEWAY_FAILED" },
    ];
    const merchant = await server.newMerchant("Zengin Shop");
    const receiver = await startWebhookReceiver(merchant.webhook_secret);
    try {
      await setWebhookUrl(server.ctx, merchant.merchant_id, receiver.url);
      const chargeOfCode = new Map<string, number>();
      for (const { code } of expected) {
        const { paymentLink } = await createPayment(server, {}, merchant.api_key);
        const done = await server
          .client(SandboxService, merchant.api_key)
          .completePayment({ paymentLinkUrl: paymentLink!.url, accountNumber: `999999${code}` });
        expect(done.chargeStatus).toBe(ChargeStatus.FAILURE);
        chargeOfCode.set(done.chargeId, code);
      }
      await server.webhooks.drain();
      const failures = () => receiver.delivered.filter((d) => d.event_type === "EVENT_TYPE_CHARGE_FAIL");
      await receiver.waitFor(() => failures().length >= expected.length);
      expect(receiver.rejected).toEqual([]);

      const byCode = new Map(
        failures().map((d) => [
          chargeOfCode.get(d.content.id as string),
          d.content.error as { code: string; message: string },
        ]),
      );
      for (const { code, errorType } of expected) {
        expect(byCode.get(code)?.code).toBe(errorType);
        expect(byCode.get(code)?.message).toContain(`Zengin result ${code}:`);
      }
    } finally {
      await receiver.close();
    }
  });
});

describe.each(dialects)("contract limits reset at 00:00 JST (%s)", (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    // Tuesday 31 March 2026, 23:00 JST: the last hour of a day and of a month.
    server = await startTestServer({ dialect, clockStart: jst("2026-03-31T23:00"), env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  it("bank 9903's ¥30,000 a day (and a month) refuses with OVER_LIMIT until midnight JST, then allows again", async () => {
    const { customerId } = await seedActiveCustomer(server, { bankCode: "9903" });
    expect((await chargeNow(server, customerId, 20_000)).charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    moveTo(server, jst("2026-03-31T23:59"));
    server.clock.advance(59_999); // 23:59:59.999 JST
    const refused = await chargeNow(server, customerId, 20_000);
    expect(refused.reason).toBe("ERROR_TYPE_PAYMENT_CHARGE_OVER_LIMIT");
    expect(refused.error?.rawMessage).toContain("¥30,000 per day");

    server.clock.advance(1); // 00:00 JST on 1 April: a new day and a new month
    expect((await chargeNow(server, customerId, 20_000)).charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect((await chargeNow(server, customerId, 10_001)).reason).toBe("ERROR_TYPE_PAYMENT_CHARGE_OVER_LIMIT");
  });

  it("bank 9901 refuses a single payment above ¥100,000", async () => {
    moveTo(server, jst("2026-04-01T10:00")); // after its 23:55–00:05 window
    const { customerId } = await seedActiveCustomer(server, { bankCode: "9901" });
    const refused = await chargeNow(server, customerId, 100_001);
    expect(refused.reason).toBe("ERROR_TYPE_PAYMENT_CHARGE_OVER_LIMIT");
    expect(refused.error?.rawMessage).toContain("¥100,000 per payment");
    expect((await chargeNow(server, customerId, 100_000)).charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
  });
});

/** A new on-session link whose two-factor step is done: its token and customer. */
async function verifiedLink(server: TestServer, options: { email?: string; forceKyc?: boolean } = {}) {
  const email = options.email ?? freshEmail();
  const { paymentLink, charge } = await createPayment(server, {
    buyer: { email, forceKyc: options.forceKyc ?? false },
  });
  const token = tokenOf(paymentLink!.url);
  const page = server.client(HostedPageService);
  await page.sendTwoFactorCode({ token });
  expect((await page.verifyTwoFactorCode({ token, code: await latestCode(server, email) })).verified).toBe(true);
  return { token, customerId: charge!.customer!.id! };
}

describe("account holder names in the bank's kana", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  const link = (token: string, accountHolder: string) =>
    server
      .client(HostedPageService)
      .linkBankAccount({ token, bankCode: "0001", branchCode: "001", accountNumber: "1234567", accountHolder });
  // The account is held on the link (sealed) until the payment is approved.
  const storedHolder = async (customerId: string) => {
    const { id } = await server.ctx.tx.db
      .selectFrom("payment_links")
      .select("id")
      .where("customer_id", "=", customerId)
      .executeTakeFirstOrThrow();
    return (await findPendingBankAccount(server.ctx.tx.db, id))?.accountHolder;
  };

  it.each([
    ["small kana to full size, full-width to half-width", "キャッシュ　ミホ", "ｷﾔﾂｼﾕ ﾐﾎ"],
    ["ー to -, full-width letters and digits to ASCII", "コーヒー ＡＢＣ（１）", "ｺ-ﾋ- ABC(1)"],
    ["half-width kana with voiced marks as they are", "ｶﾞｸｾｲ ﾊﾟﾊﾟ.", "ｶﾞｸｾｲ ﾊﾟﾊﾟ."],
    ["hiragana to katakana (issue #34: it was refused)", "ふりこみ しょうじ", "ﾌﾘｺﾐ ｼﾖｳｼﾞ"],
    ["ヰ, ヱ and ヲ as ｲ, ｴ and ｵ (the 全銀協 rules)", "ヰセキ ヱミ ヲノ", "ｲｾｷ ｴﾐ ｵﾉ"],
  ])("normalises: %s", async (_rule, typed, stored) => {
    const { token, customerId } = await verifiedLink(server);
    expect((await link(token, typed)).linked).toBe(true);
    expect(await storedHolder(customerId)).toBe(stored);
  });

  it.each([
    ["kanji", "山田 太郎"],
    ["lower-case letters", "yamada"],
    ["the middle dot", "ヤマダ・タロウ"],
    ["/, outside the 全銀協 rules for names (no contract widens them here)", "ヤマダ/タロウ"],
    ["more than 30 characters once voiced marks are split off", "ガ".repeat(16)],
  ])("rejects %s with VALIDATION_FAILED naming account_holder", async (_what, typed) => {
    const { token } = await verifiedLink(server);
    const error = await caught(link(token, typed));
    expect(error?.code).toBe(Code.InvalidArgument);
    const [detail] = error!.findDetails(PaymentErrorSchema);
    expect(detail).toMatchObject({ code: "ERROR_TYPE_PAYMENT_VALIDATION_FAILED", field: "account_holder" });
    expect(error?.rawMessage).toMatch(/^account_holder: /);
  });
});

describe("eKYC methods and the 2027-04-01 end of photo-based verification", () => {
  let server: TestServer;

  beforeAll(async () => {
    // Wednesday 31 March 2027, 23:59 JST.
    server = await startTestServer({ clockStart: jst("2027-03-31T23:59"), env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  const kycForm = {
    name: "山田 太郎",
    katakanaLastName: "ヤマダ",
    katakanaFirstName: "タロウ",
    birthDate: "1990-04-01",
    address: "東京都千代田区千代田1-1-101",
  };
  const submit = (token: string, method: KycMethod) =>
    server.client(HostedPageService).submitKyc({ token, ...kycForm, method });
  const kycOf = async (customerId: string) =>
    (await server.client(PaymentService).getCustomer({ customer: customerId })).customer!;

  it("accepts photos until 3/31, refuses them from 4/1 JST; chip and signature methods are reviewed in minutes, photos in office hours", async () => {
    const photo = await verifiedLink(server, { forceKyc: true });
    expect((await submit(photo.token, KycMethod.PHOTO_SELFIE)).kycStatus).toBe(KycStatus.IN_REVIEW);

    server.clock.advance(60_000); // 00:00 JST on 1 April 2027
    const late = await verifiedLink(server, { forceKyc: true });
    for (const method of [KycMethod.PHOTO_SELFIE, KycMethod.PHOTO_DOCUMENTS]) {
      const error = await caught(submit(late.token, method));
      expect(error?.code).toBe(Code.InvalidArgument);
      expect(error?.findDetails(PaymentErrorSchema)[0]).toMatchObject({
        code: "ERROR_TYPE_PAYMENT_VALIDATION_FAILED",
        field: "method",
      });
      expect(error?.rawMessage).toContain("2027-04-01");
    }
    expect((await submit(late.token, KycMethod.IC_CHIP_SELFIE)).kycStatus).toBe(KycStatus.IN_REVIEW);

    // The chip is checked by machine in five minutes; the photo waits for the office (09:00 + 3 h).
    server.clock.advance(5 * 60_000);
    await server.jobs.drain();
    expect((await kycOf(late.customerId)).status?.kyc).toBe(KycStatus.APPROVED);
    expect((await kycOf(photo.customerId)).status?.kyc).toBe(KycStatus.IN_REVIEW);
    moveTo(server, new Date(jst("2027-04-01T12:00").getTime() - 1));
    await server.jobs.drain();
    expect((await kycOf(photo.customerId)).status?.kyc).toBe(KycStatus.IN_REVIEW);
    server.clock.advance(1);
    await server.jobs.drain();
    expect((await kycOf(photo.customerId)).status?.kyc).toBe(KycStatus.APPROVED);
  });

  it("reports the rejection reason a magic e-mail asks for on the customer's KYC status", async () => {
    const rejected = await verifiedLink(server, { email: "kyc-old-kanji@example.jp", forceKyc: true });
    await submit(rejected.token, KycMethod.MY_NUMBER_SIGNATURE);
    server.clock.advance(5 * 60_000);
    await server.jobs.drain();
    const customer = await kycOf(rejected.customerId);
    expect(customer.status?.kyc).toBe(KycStatus.DENIED);
    expect(customer.kycRejectionReason).toContain("old-style kanji");
  });
});

describe.each(dialects)("the bank's own authentication, on the bank's own page (%s)", (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ dialect, clockStart: jst("2026-03-10T10:00"), env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  const link = (token: string, accountNumber: string, bankCode = "9901") =>
    server.client(HostedPageService).linkBankAccount({
      token,
      bankCode,
      branchCode: "001",
      accountNumber,
      accountHolder: "ヤマダ タロウ",
    });
  const wrong = { pin: "9999", oneTimePassword: "123456" };

  it("never takes a PIN or one-time password on the service's API", async () => {
    const { token } = await verifiedLink(server);
    for (const credentials of [{ pin: "1234" }, { oneTimePassword: "123456" }]) {
      const refused = await caught(
        server.client(HostedPageService).linkBankAccount({
          token,
          bankCode: "9901",
          branchCode: "001",
          accountNumber: "2222222",
          accountHolder: "ヤマダ タロウ",
          ...credentials,
        }),
      );
      expect(refused?.code).toBe(Code.InvalidArgument);
      expect(refused?.rawMessage).toContain("bank's own page");
    }
  });

  it("asks for them on the bank's page, and locks the account for the rest of the JST day after three wrong entries", async () => {
    const { token } = await verifiedLink(server);
    const chosen = await link(token, "2222222");
    expect(chosen.linked).toBe(false);
    expect(new URL(chosen.bankRedirectUrl).port).toBe(String(bankPort(server)));
    const missing = await atBank(server, chosen.bankRedirectUrl, { pin: "", oneTimePassword: "" });
    expect(missing.status).toBe(422);
    expect(await missing.text()).toContain("暗証番号とワンタイムパスワードを入力してください");

    for (const attemptsLeft of [2, 1, 0]) {
      const answer = await atBank(server, chosen.bankRedirectUrl, wrong);
      expect(answer.status).toBe(422);
      expect(await answer.text()).toContain(`${attemptsLeft} attempt(s) left today`);
    }
    // Locked: even the right entry is sent back as locked, on this link or another one for the account.
    const locked = backLocation(await atBank(server, chosen.bankRedirectUrl));
    expect(locked.searchParams.get("error")).toBe("locked");
    expect(locked.searchParams.has("code")).toBe(false);
    expect(await returnFromBank(server, locked)).toBe("locked");
    const other = await verifiedLink(server);
    const again = await link(other.token, "2222222");
    expect(backLocation(await atBank(server, again.bankRedirectUrl)).searchParams.get("error")).toBe("locked");
    // Another account is not locked.
    const third = await link(other.token, "3333333");
    expect(await returnFromBank(server, backLocation(await atBank(server, third.bankRedirectUrl)))).toBe("verified");

    moveTo(server, jst("2026-03-11T00:00"));
    const nextDay = await verifiedLink(server);
    const fresh = await link(nextDay.token, "2222222");
    expect(await returnFromBank(server, backLocation(await atBank(server, fresh.bankRedirectUrl)))).toBe("verified");
  });

  it("is not asked for by the default bank, whose mandate is registered with the first debit", async () => {
    const { token } = await verifiedLink(server);
    const chosen = await link(token, "2222222", "0001");
    expect(chosen).toMatchObject({ linked: true, bankRedirectUrl: "", verification: MandateVerification.FIRST_DEBIT });
  });
});
