import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  ApiSource,
  ChargeStatus,
  ContractStatus,
  ErrorType,
  EventType,
  KycStatus,
  PaymentErrorCode,
} from "../../gen/payments/v1/enums_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { KycOutcome, KycReviewMode, SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { setWebhookUrl } from "../../src/flows/merchants.js";
import { seedActiveCustomer, seedConsignor } from "../helpers/fixtures.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.js";
import { oneTimeCodeMessage } from "../../src/domain/one-time-code.js";
import { createPayment, eventsAbout, freshEmail, payStepByStep, tokenOf } from "../helpers/on-session.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.stop());

const connectError = (e: unknown) => ConnectError.from(e);

describe("SandboxService.CompletePayment", () => {
  it("completes CONTRACT_WITH_CHARGE: the charge succeeds and the contract activates", async () => {
    const { charge, paymentLink } = await createPayment(server);
    const done = await server.client(SandboxService).completePayment({ paymentLinkUrl: paymentLink!.url });
    expect(done).toMatchObject({
      chargeStatus: ChargeStatus.SUCCESS,
      chargeId: charge!.chargeId,
      customerId: charge!.customer!.id,
      contractId: charge!.contractId,
      errorCode: PaymentErrorCode.UNSPECIFIED,
    });
    expect(done.redirectUrl).toContain("status=CHARGE_STATUS_SUCCESS");
    expect(done.error).toBeUndefined();
    expect((await server.client(PaymentService).getContract({ contract: charge!.contractId })).contract?.status).toBe(
      ContractStatus.ACTIVATED,
    );
    const { account } = await server.client(SandboxService).getBankAccount({ customerId: charge!.customer!.id! });
    expect(account?.balance).toBe(1_000_000n - 1200n);
    expect(account?.ledger.map((entry) => [entry.reference, entry.amount])).toEqual([[charge!.chargeId, -1200n]]);
  });

  it("completes CONTRACT, CHARGE and ONE_TIME_CHARGE", async () => {
    const sandbox = server.client(SandboxService);
    const contract = await createPayment(server, { charge: { description: "Register" } });
    const contractDone = await sandbox.completePayment({ paymentLinkUrl: contract.paymentLink!.url });
    expect(contractDone).toMatchObject({
      chargeStatus: ChargeStatus.SUCCESS,
      chargeId: "",
      contractId: contract.charge!.contractId,
    });

    const { customerId } = await seedActiveCustomer(server);
    const charge = await createPayment(server, { buyer: { customerId }, charge: { price: 700 } });
    const chargeDone = await sandbox.completePayment({ paymentLinkUrl: charge.paymentLink!.url });
    expect(chargeDone).toMatchObject({
      chargeStatus: ChargeStatus.SUCCESS,
      chargeId: charge.charge!.chargeId,
      customerId,
    });

    const oneOff = await createPayment(server, { charge: { price: 900, oneOffCharge: true } });
    const oneOffDone = await sandbox.completePayment({ paymentLinkUrl: oneOff.paymentLink!.url });
    expect(oneOffDone).toMatchObject({
      chargeStatus: ChargeStatus.SUCCESS,
      chargeId: oneOff.charge!.chargeId,
      customerId: "",
      contractId: "",
    });
    expect(
      (await server.client(PaymentService).getCharge({ charge: oneOff.charge!.chargeId })).charge?.chargeStatus,
    ).toBe(ChargeStatus.SUCCESS);
  });

  it("opens the account with initial_balance: too little fails with ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS", async () => {
    const { charge, paymentLink } = await createPayment(server);
    const done = await server
      .client(SandboxService)
      .completePayment({ paymentLinkUrl: paymentLink!.url, initialBalance: 100n, accountNumber: "7777777" });
    expect(done.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect(done.error).toMatchObject({
      code: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS,
      message: "Customer has insufficient funds",
    });
    const { account } = await server.client(SandboxService).getBankAccount({ customerId: charge!.customer!.id! });
    // Only the masked account leaves the service.
    expect(account).toMatchObject({ accountNumber: "****777", balance: 100n, ledger: [] });
    expect(account?.display).toMatch(/ 普通 \*\*\*\*777$/);
  });

  it("decides KYC as asked: denied fails the charge, pending leaves it WAITING_EKYC", async () => {
    const sandbox = server.client(SandboxService);
    const denied = await createPayment(server, { buyer: { email: freshEmail(), forceKyc: true } });
    const deniedDone = await sandbox.completePayment({ paymentLinkUrl: denied.paymentLink!.url, kyc: KycOutcome.DENY });
    expect(deniedDone.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect(deniedDone.error?.code).toBe(ErrorType.PAYMENT_CHARGE_REJECTED);

    const pending = await createPayment(server, { buyer: { email: freshEmail(), forceKyc: true } });
    const pendingDone = await sandbox.completePayment({
      paymentLinkUrl: pending.paymentLink!.url,
      kyc: KycOutcome.PENDING,
    });
    expect(pendingDone.chargeStatus).toBe(ChargeStatus.WAITING_EKYC);
    const { customer } = await server.client(PaymentService).getCustomer({ customer: pending.charge!.customer!.id! });
    expect(customer?.status?.kyc).toBe(KycStatus.IN_REVIEW);

    const approved = await createPayment(server, { buyer: { email: freshEmail(), forceKyc: true } });
    expect((await sandbox.completePayment({ paymentLinkUrl: approved.paymentLink!.url })).chargeStatus).toBe(
      ChargeStatus.SUCCESS,
    );
  });

  it("stops before approving with approve=false: steps done, nothing charged", async () => {
    const { charge, paymentLink } = await createPayment(server);
    const done = await server
      .client(SandboxService)
      .completePayment({ paymentLinkUrl: paymentLink!.url, approve: false });
    expect(done.chargeStatus).toBe(ChargeStatus.PENDING);
    const { result } = await server.client(HostedPageService).initiatePayment({ token: tokenOf(paymentLink!.url) });
    expect(result?.outcome.value).toMatchObject({ twoFactorVerified: true, bankLinked: true, completed: false });
    expect((await server.client(PaymentService).getCharge({ charge: charge!.chargeId })).charge?.chargeStatus).toBe(
      ChargeStatus.PENDING,
    );
  });

  it("answers on POST /v1/sandbox/complete-payment, reports an expired link, and hides other merchants' links", async () => {
    const { paymentLink } = await createPayment(server);
    await server.client(SandboxService).expirePaymentLink({ paymentLinkUrl: paymentLink!.url });
    const res = await api(server, "/v1/sandbox/complete-payment", {
      method: "POST",
      json: { payment_link_url: paymentLink!.url },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      chargeStatus: "CHARGE_STATUS_FAILURE",
      errorCode: "PAYMENT_ERROR_CODE_EXPIRED",
      error: { code: "ERROR_TYPE_PAYMENT_LINK_EXPIRED" },
    });

    const other = await server.newMerchant();
    const foreign = await createPayment(server, {}, other.api_key);
    const refused = await api(server, "/v1/sandbox/complete-payment", {
      method: "POST",
      json: { payment_link_url: foreign.paymentLink!.url },
    });
    expect(refused.status).toBe(404);
  });
});

describe("the simulated bank", () => {
  it("ConfigureBankAccount refuses a maintenance end outside 1970–9999 (a time no date can hold) as invalid_argument", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const sandbox = server.client(SandboxService, undefined, { binary: true });
    for (const seconds of [-1n, 10n ** 15n]) {
      const error = await sandbox
        .configureBankAccount({ customerId, maintenanceUntil: { seconds } })
        .catch((e: unknown) => ConnectError.from(e));
      expect(error).toBeInstanceOf(ConnectError);
      expect((error as ConnectError).code).toBe(Code.InvalidArgument);
      expect((error as ConnectError).rawMessage).toContain("maintenance_until");
    }
  });

  it("ConfigureBankAccount opens and sets an account; quota, reject and a maintenance window fail debits with their ErrorType", async () => {
    const sandbox = server.client(SandboxService);
    const email = freshEmail();
    const cases: Array<[Parameters<typeof sandbox.configureBankAccount>[0], ErrorType]> = [
      [{ quota: 1000n }, ErrorType.PAYMENT_CHARGE_OVER_LIMIT],
      [{ reject: true }, ErrorType.PAYMENT_GATEWAY_FAILED],
      [
        { maintenanceUntil: { seconds: BigInt(Math.floor(server.clock.now().getTime() / 1000) + 3600) } },
        ErrorType.PAYMENT_GATEWAY_UNAVAILABLE,
      ],
    ];
    for (const [settings, errorType] of cases) {
      const { charge, paymentLink } = await createPayment(server, { buyer: { email } });
      const { account } = await sandbox.configureBankAccount({ ...settings, customerId: charge!.customer!.id! });
      expect(account?.customerId).toBe(charge!.customer!.id);
      const done = await sandbox.completePayment({ paymentLinkUrl: paymentLink!.url });
      expect(done.error?.code).toBe(errorType);
      await sandbox.configureBankAccount({
        customerId: charge!.customer!.id!,
        quota: 0n,
        reject: false,
        underMaintenance: false,
      });
    }
    const { account } = await sandbox.getBankAccount({
      customerId: (await server.client(PaymentService).listCustomers({ email })).customers[0].id,
    });
    expect(account).toMatchObject({ underMaintenance: false, reject: false, quota: 0n, ledger: [] });
  });

  it("GetBankAccount answers 404 for a customer without an account, and for another merchant's customer", async () => {
    const { charge } = await createPayment(server);
    const missing = await server
      .client(SandboxService)
      .getBankAccount({ customerId: charge!.customer!.id! })
      .catch(connectError);
    expect((missing as ConnectError).code).toBe(Code.NotFound);
    const { customerId } = await seedActiveCustomer(server);
    const other = await server.newMerchant();
    const res = await api(server, `/v1/sandbox/bank-accounts/${customerId}`, { apiKey: other.api_key });
    expect(res.status).toBe(404);
    const mine = await api(server, `/v1/sandbox/bank-accounts/${customerId}`);
    expect((await mine.json()).account.balance).toBe("1000000");
  });

  it("SetBankMaintenance puts the merchant's whole bank under maintenance until a time on the server clock", async () => {
    const merchant = await server.newMerchant("Window Shop");
    const sandbox = server.client(SandboxService, merchant.api_key);
    const until = Math.floor(server.clock.now().getTime() / 1000) + 600;
    expect(
      (await sandbox.setBankMaintenance({ underMaintenance: true, until: { seconds: BigInt(until) } }))
        .underMaintenance,
    ).toBe(true);
    const first = await createPayment(server, {}, merchant.api_key);
    expect((await sandbox.completePayment({ paymentLinkUrl: first.paymentLink!.url })).error?.code).toBe(
      ErrorType.PAYMENT_GATEWAY_UNAVAILABLE,
    );
    server.clock.advance(601_000);
    const second = await createPayment(server, {}, merchant.api_key);
    expect((await sandbox.completePayment({ paymentLinkUrl: second.paymentLink!.url })).chargeStatus).toBe(
      ChargeStatus.SUCCESS,
    );
  });
});

describe("payment links, KYC review and the mailbox", () => {
  it("ExpirePaymentLink expires an open link now: charge FAILURE (LINK_EXPIRED, CHARGE_FAIL event), contract EXPIRED", async () => {
    const { charge, paymentLink } = await createPayment(server);
    const expired = await server.client(SandboxService).expirePaymentLink({ paymentLinkUrl: paymentLink!.url });
    expect(expired).toMatchObject({ chargeStatus: ChargeStatus.FAILURE, contractStatus: ContractStatus.EXPIRED });
    const [event] = await eventsAbout(server, charge!.chargeId);
    expect(event).toMatchObject({
      type: "EVENT_TYPE_CHARGE_FAIL",
      content: { error: { code: "ERROR_TYPE_PAYMENT_LINK_EXPIRED" } },
    });
    // Again: nothing changes, no second event.
    await server.client(SandboxService).expirePaymentLink({ paymentLinkUrl: paymentLink!.url });
    expect(await eventsAbout(server, charge!.chargeId)).toHaveLength(1);
  });

  it("ExpirePaymentLink refuses a paid link with failed_precondition", async () => {
    const { paymentLink } = await createPayment(server);
    await server.client(SandboxService).completePayment({ paymentLinkUrl: paymentLink!.url });
    const res = await api(server, "/v1/sandbox/payment-links/expire", {
      method: "POST",
      json: { payment_link_url: paymentLink!.url },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("failed_precondition");
  });

  it("ConfigureKycReview: automatic denial after a delay, run by the job on the test clock", async () => {
    const merchant = await server.newMerchant("Strict KYC Shop");
    const sandbox = server.client(SandboxService, merchant.api_key);
    expect(await sandbox.configureKycReview({ mode: KycReviewMode.AUTO_DENY, delaySeconds: 60 })).toMatchObject({
      mode: KycReviewMode.AUTO_DENY,
      delaySeconds: 60,
    });
    const email = freshEmail();
    const { charge, paymentLink } = await createPayment(server, { buyer: { email, forceKyc: true } }, merchant.api_key);
    const waiting = await payStepByStep(server, paymentLink!.url, { email, kyc: true, apiKey: merchant.api_key });
    expect(waiting.result?.outcome.value).toMatchObject({ chargeStatus: ChargeStatus.WAITING_EKYC });
    const customerId = charge!.customer!.id!;
    const client = server.client(PaymentService, merchant.api_key);
    server.clock.advance(30_000);
    await server.jobs.drain();
    expect((await client.getCustomer({ customer: customerId })).customer?.status?.kyc).toBe(KycStatus.IN_REVIEW);
    server.clock.advance(30_000);
    await server.jobs.drain();
    expect((await client.getCustomer({ customer: customerId })).customer?.status?.kyc).toBe(KycStatus.DENIED);
    expect((await client.getCharge({ charge: charge!.chargeId })).charge?.error?.code).toBe(
      ErrorType.PAYMENT_CHARGE_REJECTED,
    );
  });

  it("ListMailbox shows the merchant's messages, newest first, filtered by address", async () => {
    const merchant = await server.newMerchant("Mail Shop");
    const [a, b] = [freshEmail("mail-a"), freshEmail("mail-b")];
    for (const email of [a, b]) {
      const { paymentLink } = await createPayment(server, { buyer: { email } }, merchant.api_key);
      await server.client(HostedPageService).sendTwoFactorCode({ token: tokenOf(paymentLink!.url) });
    }
    const sandbox = server.client(SandboxService, merchant.api_key);
    const all = await sandbox.listMailbox({});
    expect(all.messages.map((m) => m.to)).toEqual([b, a]);
    const onlyA = await sandbox.listMailbox({ email: a.toUpperCase() });
    expect(onlyA.messages.map((m) => m.to)).toEqual([a]);
    expect((await server.client(SandboxService).listMailbox({ email: a })).messages).toHaveLength(0);
  });
});

describe("Withdraw, test events and the clock", () => {
  it("Withdraw (POST /api/v1/payment/withdraw) charges off-session through the same engine", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const res = await api(server, "/api/v1/payment/withdraw", {
      method: "POST",
      json: {
        merchant_customer_id: customerId,
        charge: { price: 2500, description: "test withdrawal", metadata: { run: "7" } },
      },
    });
    expect(res.status).toBe(200);
    const { charge } = await res.json();
    expect(charge).toMatchObject({
      chargeStatus: "CHARGE_STATUS_SUCCESS",
      customerId,
      initialAmount: 2500,
      apiSource: "API_SOURCE_OFF_SESSION_SYNC",
      metadata: { run: "7" },
    });
    const { account } = await server.client(SandboxService).getBankAccount({ customerId });
    expect(account?.ledger.map((entry) => [entry.reference, entry.amount])).toEqual([[charge.chargeId, -2500n]]);

    const viaRpc = await server
      .client(SandboxService)
      .withdraw({ merchantCustomerId: customerId, charge: { price: 100 } });
    expect(viaRpc.charge).toMatchObject({ chargeStatus: ChargeStatus.SUCCESS, apiSource: ApiSource.OFF_SESSION_SYNC });
    // Another merchant's customer is not found; a bad price is a validation error.
    const other = await server.newMerchant();
    const foreign = await api(server, "/api/v1/payment/withdraw", {
      method: "POST",
      apiKey: other.api_key,
      json: { merchant_customer_id: customerId, charge: { price: 100 } },
    });
    expect(foreign.status).toBe(400);
    expect((await foreign.json()).details[0].debug.reason).toBe("ERROR_TYPE_PAYMENT_CUSTOMER_NOT_FOUND");
    const invalid = await api(server, "/api/v1/payment/withdraw", {
      method: "POST",
      json: { merchant_customer_id: customerId, charge: { price: 0 } },
    });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).details[0].debug.reason).toBe("ERROR_TYPE_PAYMENT_VALIDATION_FAILED");
  });

  it("SendTestEvent sends an event of every type, signed, to the merchant's webhook URL", async () => {
    const merchant = await server.newMerchant("Event Shop");
    const sandbox = server.client(SandboxService, merchant.api_key);
    const none = await api(server, "/v1/sandbox/events", {
      method: "POST",
      apiKey: merchant.api_key,
      json: { event_type: "EVENT_TYPE_CHARGE_SUCCESS" },
    });
    expect(none.status).toBe(400);
    expect((await none.json()).code).toBe("failed_precondition");

    const receiver = await startWebhookReceiver(merchant.webhook_secret);
    try {
      await setWebhookUrl(server.ctx, merchant.merchant_id, receiver.url);
      const types = Object.values(EventType).filter(
        (v): v is EventType => typeof v === "number" && v !== EventType.UNSPECIFIED,
      );
      const ids: string[] = [];
      for (const eventType of types) ids.push((await sandbox.sendTestEvent({ eventType })).eventId);
      await server.webhooks.drain();
      expect(receiver.rejected).toEqual([]);
      const byId = new Map(receiver.delivered.map((w) => [w.id, w]));
      expect(ids.map((id) => byId.get(id)?.event_type)).toEqual([
        "EVENT_TYPE_CHARGE_SUCCESS",
        "EVENT_TYPE_CHARGE_FAIL",
        "EVENT_TYPE_REFUND_SUCCEEDED",
        "EVENT_TYPE_REFUND_FAILED",
        "EVENT_TYPE_CONTRACT_ACTIVATED",
        "charge.created",
        "charge.fail",
        "EVENT_TYPE_CONTRACT_STOP_REQUESTED",
        "EVENT_TYPE_SUBSCRIPTION_CREATED",
        "EVENT_TYPE_SUBSCRIPTION_PAYMENT_SCHEDULED",
        "EVENT_TYPE_SUBSCRIPTION_PAST_DUE",
        "EVENT_TYPE_SUBSCRIPTION_CANCELLED",
      ]);
      const [success, fail, refunded, refundFailed, activated, , , stopRequested, subscriptionCreated, , , cancelled] =
        ids.map((id) => byId.get(id)!.content);
      expect(subscriptionCreated).toMatchObject({
        subscription_id: expect.stringMatching(/^sub-/),
        status: "SUBSCRIPTION_STATUS_ACTIVE",
        merchant_name: "Event Shop",
      });
      expect(cancelled).toMatchObject({ end_reason: "SUBSCRIPTION_END_REASON_CANCELLED" });
      expect(success).toMatchObject({
        status: "CHARGE_STATUS_SUCCESS",
        merchant_name: "Event Shop",
        metadata: { test: "true" },
      });
      expect(fail).toMatchObject({ error: { code: "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS" } });
      expect(refunded).toMatchObject({ charge_status: "CHARGE_STATUS_REFUNDED" });
      expect(refundFailed).toMatchObject({ transaction: { status: 1 }, refund: { error: { code: "refund_failed" } } });
      expect(activated).toMatchObject({ status: "CONTRACT_STATUS_ACTIVATED" });
      expect(stopRequested).toMatchObject({ contract_status: "CONTRACT_STATUS_ACTIVATED", reason: "test event" });
      expect(stopRequested.stop_request_id).toMatch(/^stp-/);
      // The REST path, with the enum name.
      const rest = await api(server, "/v1/sandbox/events", {
        method: "POST",
        apiKey: merchant.api_key,
        json: { event_type: "EVENT_TYPE_CHARGE_FAIL" },
      });
      expect((await rest.json()).eventId).toMatch(/^mwh-/);
    } finally {
      await receiver.close();
    }
  });

  it("AdvanceClock moves a SANDBOX_CLOCK=manual server's clock, and what fell due runs", async () => {
    const refused = await api(server, "/v1/sandbox/clock/advance", { method: "POST", json: { seconds: 60 } });
    expect(refused.status).toBe(400);
    expect((await refused.json()).code).toBe("failed_precondition");

    const manual = await startTestServer({
      env: { SANDBOX_CLOCK: "manual" },
      clockStart: new Date("2026-04-01T00:00:00Z"),
    });
    try {
      const { charge, paymentLink } = await createPayment(manual);
      const before = manual.clock.now().getTime();
      const res = await api(manual, "/v1/sandbox/clock/advance", { method: "POST", json: { seconds: 90 * 60 } });
      expect(res.status).toBe(200);
      expect(new Date((await res.json()).now).getTime()).toBe(before + 90 * 60_000);
      await manual.jobs.drain();
      expect((await manual.client(PaymentService).getCharge({ charge: charge!.chargeId })).charge?.error?.code).toBe(
        ErrorType.PAYMENT_LINK_EXPIRED,
      );
      const { result } = await manual.client(HostedPageService).initiatePayment({ token: tokenOf(paymentLink!.url) });
      expect(result?.outcome.value).toMatchObject({ errorCode: PaymentErrorCode.EXPIRED });
    } finally {
      await manual.stop();
    }
  });
});

describe("production mode", () => {
  let production: TestServer;
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    production = await startTestServer({
      env: {
        MODE: "production",
        SMTP_HOST: "127.0.0.1",
        SMTP_PORT: String(smtp.port),
        SMTP_USER: "relay",
        SMTP_PASSWORD: "secret",
        SMTP_FROM: "pay@furikomi.example",
        SMTP_REQUIRE_TLS: "true",
        SMTP_CA_FILE: smtp.caFile,
      },
    });
    await seedConsignor(production);
  });
  afterAll(async () => {
    await production?.stop();
    await smtp?.close();
  });

  it("answers 404 not_found for every SandboxService method, on the plain HTTP paths and over Connect", async () => {
    expect(production.merchant.api_key).toMatch(/^sk_live_/);
    const paths: Array<[string, string, unknown?]> = [
      ["POST", "/v1/sandbox/complete-payment", { payment_link_url: "http://x/pay/y" }],
      ["GET", "/v1/sandbox/bank-accounts/cus-x"],
      ["POST", "/v1/sandbox/bank-accounts/cus-x", { balance: 1 }],
      ["POST", "/v1/sandbox/bank/maintenance", { under_maintenance: true }],
      ["POST", "/v1/sandbox/customers/cus-x/kyc", { decision: "KYC_STATUS_APPROVED" }],
      ["POST", "/v1/sandbox/kyc-review", { mode: "KYC_REVIEW_MODE_MANUAL" }],
      ["POST", "/v1/sandbox/payment-links/expire", { payment_link_url: "http://x/pay/y" }],
      ["GET", "/v1/sandbox/mailbox"],
      ["POST", "/api/v1/payment/withdraw", { merchant_customer_id: "cus-x", charge: { price: 1 } }],
      ["POST", "/v1/sandbox/refunds/settle", {}],
      ["POST", "/v1/sandbox/events", { event_type: "EVENT_TYPE_CHARGE_SUCCESS" }],
      ["POST", "/v1/sandbox/clock/advance", { seconds: 1 }],
    ];
    for (const [method, path, json] of paths) {
      const res = await api(production, path, { method, json });
      expect(res.status, path).toBe(404);
      expect((await res.json()).code).toBe("not_found");
    }
    const error = await production.client(SandboxService).listMailbox({}).catch(connectError);
    expect((error as ConnectError).code).toBe(Code.NotFound);
  });

  it("sends the two-factor code by SMTP, and the customer pays with it", async () => {
    const email = freshEmail("smtp");
    const { charge, paymentLink } = await createPayment(production, { buyer: { email } });
    const token = tokenOf(paymentLink!.url);
    const page = production.client(HostedPageService);
    await page.sendTwoFactorCode({ token });
    expect(smtp.mails).toHaveLength(1);
    const [mail] = smtp.mails;
    expect(mail).toMatchObject({ from: "pay@furikomi.example", to: [email], user: "relay", secure: true });
    expect(mail.parsed.subject).toBe(oneTimeCodeMessage(production.merchant.name, "").subject);
    const code = /\b([0-9]{6})\b/.exec(mail.parsed.text ?? "")?.[1] ?? "";
    expect((await page.verifyTwoFactorCode({ token, code })).verified).toBe(true);
    await page.linkBankAccount({
      token,
      bankCode: "0005",
      branchCode: "123",
      accountNumber: "1111111",
      accountHolder: "スズキ",
    });
    const approved = await page.approvePayment({ token });
    // Production debits by Zengin file: the charge waits, PENDING, for its debit date's result.
    expect(approved.result?.outcome.value).toMatchObject({ chargeStatus: ChargeStatus.PENDING });
    expect((await production.client(PaymentService).getCharge({ charge: charge!.chargeId })).charge?.chargeStatus).toBe(
      ChargeStatus.PENDING,
    );
    const mailbox = await production.ctx.tx.db.selectFrom("mailbox").select("id").execute();
    expect(mailbox).toHaveLength(0);
  });

  it("without SMTP_HOST, refuses to send rather than losing the code", async () => {
    const bare = await startTestServer({ env: { MODE: "production" } });
    try {
      const { paymentLink } = await createPayment(bare);
      const error = await bare
        .client(HostedPageService)
        .sendTwoFactorCode({ token: tokenOf(paymentLink!.url) })
        .catch(connectError);
      expect((error as ConnectError).code).toBe(Code.Internal);
      // The code was forgotten, so the customer can ask again at once (no 30-second throttle).
      const again = await bare
        .client(HostedPageService)
        .sendTwoFactorCode({ token: tokenOf(paymentLink!.url) })
        .catch(connectError);
      expect((again as ConnectError).code).toBe(Code.Internal);
    } finally {
      await bare.stop();
    }
  });
});
