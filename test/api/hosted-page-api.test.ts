import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  ChargeStatus,
  ContractStatus,
  ErrorType,
  KycStatus,
  PaymentAuthorizationStatus,
  PaymentErrorCode,
  PaymentWorkflow,
} from "../../gen/payments/v1/enums_pb.js";
import {
  HostedPageService,
  type ApprovePaymentResponse,
  type PaymentSession,
} from "../../gen/payments/v1/hosted_page_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { KycReviewMode, SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import {
  createPayment,
  eventsAbout,
  eventsOfType,
  freshEmail,
  latestCode,
  payStepByStep,
  redirect,
  tokenOf,
} from "../helpers/on-session.js";
import { api, dialects, startTestServer, testDialect, type TestServer } from "../helpers/test-server.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.stop());

function success(response: ApprovePaymentResponse) {
  if (response.result?.outcome.case !== "success")
    throw new Error(`expected result.success, got ${JSON.stringify(response.result?.outcome.value)}`);
  return response.result.outcome.value;
}

async function sessionOf(token: string): Promise<PaymentSession> {
  const { result } = await server.client(HostedPageService).initiatePayment({ token });
  if (result?.outcome.case !== "session") throw new Error("expected a session");
  return result.outcome.value;
}

async function ledgerOf(customerId: string) {
  return server.ctx.tx.db.selectFrom("bank_ledger").selectAll().where("customer_id", "=", customerId).execute();
}

const connectError = (e: unknown) => ConnectError.from(e);

describe("the four workflows, step by step through HostedPageService", () => {
  it("CONTRACT_WITH_CHARGE: pays, activates the contract and the customer, and records both events", async () => {
    const email = freshEmail();
    const { charge, paymentLink } = await createPayment(server, { buyer: { email } });
    const token = tokenOf(paymentLink!.url);
    const session = await sessionOf(token);
    expect(session).toMatchObject({
      amount: 1200,
      currency: "JPY",
      description: "Coffee beans",
      workflow: PaymentWorkflow.CONTRACT_WITH_CHARGE,
      twoFactorVerified: false,
      needsBankLink: true,
      needsKyc: false,
      completed: false,
      chargeStatus: ChargeStatus.PENDING,
    });
    expect(session.merchant).toMatchObject({
      token,
      name: "Test Shop",
      redirect: { successUrl: redirect.successUrl, failureUrl: redirect.failureUrl },
    });
    expect(session.emailHint).toBe(`${email[0]}***@example.jp`);

    const outcome = success(await payStepByStep(server, paymentLink!.url, { email }));
    expect(outcome.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect(outcome.chargeId).toBe(charge!.chargeId);
    const target = new URL(outcome.redirectUrl);
    expect(`${target.origin}${target.pathname}`).toBe("https://shop.example.jp/thanks");
    expect(Object.fromEntries(target.searchParams)).toEqual({
      order: "42",
      charge_id: charge!.id,
      transaction_id: charge!.chargeId,
      contract_id: charge!.contractId,
      status: "CHARGE_STATUS_SUCCESS",
    });

    const client = server.client(PaymentService);
    expect((await client.getCharge({ charge: charge!.chargeId })).charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect((await client.getContract({ contract: charge!.contractId })).contract?.status).toBe(
      ContractStatus.ACTIVATED,
    );
    const { customer } = await client.getCustomer({ customer: charge!.customer!.id! });
    expect(customer).toMatchObject({ linkInitialized: true, activated: true });
    expect(customer?.status?.payment).toBe(PaymentAuthorizationStatus.AUTHORIZED);

    const events = await eventsAbout(server, charge!.chargeId);
    expect(events.map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
    expect(events[0].content).toMatchObject({
      id: charge!.chargeId,
      customer: charge!.customer!.id,
      final_amount: 1200,
      on_session_charge_id: charge!.id,
      metadata: { order: "42" },
    });
    expect(events[0].content).not.toHaveProperty("error");
    const activations = await eventsOfType(server, server.merchant.merchant_id, "EVENT_TYPE_CONTRACT_ACTIVATED");
    expect(activations.find((c) => c.token_id === charge!.contractId)).toMatchObject({
      status: "CONTRACT_STATUS_ACTIVATED",
      merchant_name: "Test Shop",
    });

    const ledger = await ledgerOf(charge!.customer!.id!);
    expect(ledger.map((row) => [row.reference, Number(row.amount)])).toEqual([[charge!.chargeId, -1200]]);

    // A reload shows the outcome.
    const reloaded = await sessionOf(token);
    expect(reloaded).toMatchObject({
      completed: true,
      chargeStatus: ChargeStatus.SUCCESS,
      redirectUrl: outcome.redirectUrl,
    });
  });

  it("CONTRACT: links the account and activates the contract, nothing debited", async () => {
    const email = freshEmail();
    const { charge, paymentLink } = await createPayment(server, {
      buyer: { email },
      charge: { description: "Register" },
    });
    const outcome = success(await payStepByStep(server, paymentLink!.url, { email }));
    expect(outcome.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect(outcome.chargeId).toBe("");
    expect(new URL(outcome.redirectUrl).searchParams.has("transaction_id")).toBe(false);
    expect((await server.client(PaymentService).getContract({ contract: charge!.contractId })).contract?.status).toBe(
      ContractStatus.ACTIVATED,
    );
    expect(await ledgerOf(charge!.customer!.id!)).toHaveLength(0);
    const { account } = await server.client(SandboxService).getBankAccount({ customerId: charge!.customer!.id! });
    expect(account?.balance).toBe(1_000_000n);
  });

  it("CHARGE: debits the account of the active contract, no bank step, the contract stays ACTIVATED", async () => {
    const email = freshEmail();
    const { customerId, contractId } = await seedActiveCustomer(server, { email });
    const { charge, paymentLink } = await createPayment(server, {
      buyer: { customerId },
      charge: { price: 3000, description: "Refill" },
    });
    expect((await sessionOf(tokenOf(paymentLink!.url))).needsBankLink).toBe(false);
    const outcome = success(await payStepByStep(server, paymentLink!.url, { email }));
    expect(outcome.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect((await ledgerOf(customerId)).map((row) => Number(row.balance_after))).toEqual([997_000]);
    expect((await server.client(PaymentService).getContract({ contract: contractId })).contract?.status).toBe(
      ContractStatus.ACTIVATED,
    );
    expect((await eventsAbout(server, charge!.chargeId)).map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
  });

  it("ONE_TIME_CHARGE: pays once, no customer on the charge or its event, no contract", async () => {
    const email = freshEmail();
    const { charge, paymentLink } = await createPayment(server, {
      buyer: { email },
      charge: { price: 800, oneOffCharge: true },
    });
    const outcome = success(await payStepByStep(server, paymentLink!.url, { email }));
    expect(outcome.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect(new URL(outcome.redirectUrl).searchParams.has("contract_id")).toBe(false);
    const { charge: read } = await server.client(PaymentService).getCharge({ charge: charge!.chargeId });
    expect(read).toMatchObject({ chargeStatus: ChargeStatus.SUCCESS, customerId: "" });
    const [event] = await eventsAbout(server, charge!.chargeId);
    expect(event.content.customer).toBe("");
    const { customers } = await server.client(PaymentService).listCustomers({ email });
    expect(customers[0]?.activated).toBe(false);
  });

  it("serves the steps on their plain HTTP paths without an API key", async () => {
    const { paymentLink } = await createPayment(server);
    const res = await api(server, `/v1/hosted/${tokenOf(paymentLink!.url)}/initiate`, {
      method: "POST",
      json: {},
      apiKey: "",
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.result.session).toMatchObject({
      amount: 1200,
      workflow: "PAYMENT_WORKFLOW_CONTRACT_WITH_CHARGE",
      currency: "JPY",
    });
  });
});

describe("the two-factor step", () => {
  it("mails a 6-digit code that is stored only as a hash", async () => {
    const email = freshEmail();
    const { paymentLink } = await createPayment(server, { buyer: { email } });
    const sent = await server.client(HostedPageService).sendTwoFactorCode({ token: tokenOf(paymentLink!.url) });
    expect(sent.emailHint).toBe(`${email[0]}***@example.jp`);
    const { messages } = await server.client(SandboxService).listMailbox({ email });
    expect(messages).toHaveLength(1);
    expect(messages[0].code).toMatch(/^[0-9]{6}$/);
    expect(messages[0].subject).toContain("Test Shop");
    expect(messages[0].body).toContain(messages[0].code);
    const stored = await server.ctx.tx.db.selectFrom("one_time_codes").select("code_hash").execute();
    expect(stored.some((row) => row.code_hash.includes(messages[0].code))).toBe(false);
  });

  it("refuses approval, bank link and KYC before the code is verified", async () => {
    const { paymentLink } = await createPayment(server, { buyer: { email: freshEmail(), forceKyc: true } });
    const token = tokenOf(paymentLink!.url);
    const page = server.client(HostedPageService);
    const approved = await page.approvePayment({ token });
    expect(approved.result?.outcome.case).toBe("error");
    expect((approved.result!.outcome.value as { errorCode: PaymentErrorCode }).errorCode).toBe(
      PaymentErrorCode.BAD_REQUEST,
    );
    const linked = await page
      .linkBankAccount({
        token,
        bankCode: "0001",
        branchCode: "001",
        accountNumber: "1234567",
        accountHolder: "ヤマダ",
      })
      .catch(connectError);
    expect((linked as ConnectError).code).toBe(Code.FailedPrecondition);
    const kyc = await page
      .submitKyc({
        token,
        name: "山田",
        katakanaLastName: "ヤマダ",
        katakanaFirstName: "タロウ",
        birthDate: "1990-01-01",
        address: "東京",
      })
      .catch(connectError);
    expect((kyc as ConnectError).code).toBe(Code.FailedPrecondition);
  });

  it("allows 5 attempts per code, then asks for a new one", async () => {
    const email = freshEmail();
    const { paymentLink } = await createPayment(server, { buyer: { email } });
    const token = tokenOf(paymentLink!.url);
    const page = server.client(HostedPageService);
    await page.sendTwoFactorCode({ token });
    const code = await latestCode(server, email);
    const wrong = code === "000000" ? "111111" : "000000";
    const left: number[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await page.verifyTwoFactorCode({ token, code: wrong });
      expect(answer.verified).toBe(false);
      left.push(answer.attemptsLeft);
    }
    expect(left).toEqual([4, 3, 2, 1, 0]);
    const exhausted = await page.verifyTwoFactorCode({ token, code }).catch(connectError);
    expect((exhausted as ConnectError).code).toBe(Code.FailedPrecondition);
    expect((await sessionOf(token)).twoFactorVerified).toBe(false);
  });

  it("throttles resends to one per 30 seconds and accepts only the newest code", async () => {
    const email = freshEmail();
    const { paymentLink } = await createPayment(server, { buyer: { email } });
    const token = tokenOf(paymentLink!.url);
    const page = server.client(HostedPageService);
    const first = await page.sendTwoFactorCode({ token });
    const firstCode = await latestCode(server, email);
    const throttled = await page.sendTwoFactorCode({ token }).catch(connectError);
    expect((throttled as ConnectError).code).toBe(Code.ResourceExhausted);
    server.clock.advance(30_000);
    const second = await page.sendTwoFactorCode({ token });
    // Each code: valid 10 minutes, the next one 30 seconds after it was sent.
    for (const sent of [first, second])
      expect(timestampDate(sent.expiresAt!).getTime() - timestampDate(sent.resendAvailableAt!).getTime()).toBe(570_000);
    expect(
      timestampDate(second.resendAvailableAt!).getTime() - timestampDate(first.resendAvailableAt!).getTime(),
    ).toBeGreaterThanOrEqual(30_000);
    const secondCode = await latestCode(server, email);
    if (firstCode !== secondCode)
      expect((await page.verifyTwoFactorCode({ token, code: firstCode })).verified).toBe(false);
    expect((await page.verifyTwoFactorCode({ token, code: secondCode })).verified).toBe(true);
  });

  it("expires a code after 10 minutes and never accepts one twice", async () => {
    const email = freshEmail();
    const { paymentLink } = await createPayment(server, { buyer: { email } });
    const token = tokenOf(paymentLink!.url);
    const page = server.client(HostedPageService);
    await page.sendTwoFactorCode({ token });
    server.clock.advance(10 * 60_000);
    const expired = await page
      .verifyTwoFactorCode({ token, code: await latestCode(server, email) })
      .catch(connectError);
    expect((expired as ConnectError).code).toBe(Code.FailedPrecondition);

    await page.sendTwoFactorCode({ token });
    const code = await latestCode(server, email);
    expect((await page.verifyTwoFactorCode({ token, code })).verified).toBe(true);
    const again = await page.verifyTwoFactorCode({ token, code }).catch(connectError);
    expect((again as ConnectError).code).toBe(Code.FailedPrecondition);
  });
});

describe("KYC", () => {
  it("force_kyc: KYC never submitted fails the charge with ERROR_TYPE_PAYMENT_CHARGE_REJECTED and cancels the contract", async () => {
    const email = freshEmail();
    const { charge, paymentLink } = await createPayment(server, { buyer: { email, forceKyc: true } });
    expect((await sessionOf(tokenOf(paymentLink!.url))).needsKyc).toBe(true);
    const outcome = success(await payStepByStep(server, paymentLink!.url, { email }));
    expect(outcome.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect(outcome.error?.code).toBe(ErrorType.PAYMENT_CHARGE_REJECTED);
    expect(new URL(outcome.redirectUrl).searchParams.get("error_code")).toBe("ERROR_TYPE_PAYMENT_CHARGE_REJECTED");
    const { charge: read } = await server.client(PaymentService).getCharge({ charge: charge!.chargeId });
    expect(read?.error).toMatchObject({
      code: ErrorType.PAYMENT_CHARGE_REJECTED,
      message: "Customer has not completed KYC",
    });
    expect((await server.client(PaymentService).getContract({ contract: charge!.contractId })).contract?.status).toBe(
      ContractStatus.CANCELLED,
    );
    const [event] = await eventsAbout(server, charge!.chargeId);
    expect(event).toMatchObject({
      type: "EVENT_TYPE_CHARGE_FAIL",
      content: { error: { code: "ERROR_TYPE_PAYMENT_CHARGE_REJECTED" } },
    });
    expect(await ledgerOf(charge!.customer!.id!)).toHaveLength(0);
  });

  it("force_kyc: the submitted form is approved at once in the sandbox by default, and the payment succeeds", async () => {
    const email = freshEmail();
    const { charge, paymentLink } = await createPayment(server, { buyer: { email, forceKyc: true } });
    const outcome = success(await payStepByStep(server, paymentLink!.url, { email, kyc: true }));
    expect(outcome.chargeStatus).toBe(ChargeStatus.SUCCESS);
    const { customer } = await server.client(PaymentService).getCustomer({ customer: charge!.customer!.id! });
    expect(customer?.status?.kyc).toBe(KycStatus.APPROVED);
    expect(customer).toMatchObject({ katakanaLastName: "ヤマダ", birthDate: "1990-04-01" });
  });

  it("manual review: the charge waits in WAITING_EKYC, then DecideKyc approves (debit) or denies (CHARGE_REJECTED)", async () => {
    const merchant = await server.newMerchant("Manual KYC Shop");
    const sandbox = server.client(SandboxService, merchant.api_key);
    await sandbox.configureKycReview({ mode: KycReviewMode.MANUAL });
    const client = server.client(PaymentService, merchant.api_key);

    const emailA = freshEmail();
    const a = await createPayment(server, { buyer: { email: emailA, forceKyc: true } }, merchant.api_key);
    const waiting = success(
      await payStepByStep(server, a.paymentLink!.url, { email: emailA, kyc: true, apiKey: merchant.api_key }),
    );
    expect(waiting.chargeStatus).toBe(ChargeStatus.WAITING_EKYC);
    expect(new URL(waiting.redirectUrl).searchParams.get("status")).toBe("CHARGE_STATUS_WAITING_EKYC");
    expect((await client.getCustomer({ customer: a.charge!.customer!.id! })).customer?.status?.kyc).toBe(
      KycStatus.IN_REVIEW,
    );
    expect((await client.getCharge({ charge: a.charge!.chargeId })).charge?.chargeStatus).toBe(
      ChargeStatus.WAITING_EKYC,
    );
    expect((await client.getContract({ contract: a.charge!.contractId })).contract?.status).toBe(
      ContractStatus.WAITING_EKYC,
    );
    await sandbox.decideKyc({ customerId: a.charge!.customer!.id!, decision: KycStatus.APPROVED });
    expect((await client.getCharge({ charge: a.charge!.chargeId })).charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect((await client.getContract({ contract: a.charge!.contractId })).contract?.status).toBe(
      ContractStatus.ACTIVATED,
    );
    // The page, reloaded, shows the final outcome.
    expect(
      success(await server.client(HostedPageService).approvePayment({ token: tokenOf(a.paymentLink!.url) }))
        .chargeStatus,
    ).toBe(ChargeStatus.SUCCESS);

    const emailB = freshEmail();
    const b = await createPayment(server, { buyer: { email: emailB, forceKyc: true } }, merchant.api_key);
    await payStepByStep(server, b.paymentLink!.url, { email: emailB, kyc: true, apiKey: merchant.api_key });
    const { customer } = await sandbox.decideKyc({
      customerId: b.charge!.customer!.id!,
      decision: KycStatus.DENIED,
      reason: "document unreadable",
    });
    expect(customer?.status?.kyc).toBe(KycStatus.DENIED);
    expect(customer?.kycRejectionReason).toBe("document unreadable");
    const { charge } = await client.getCharge({ charge: b.charge!.chargeId });
    expect(charge?.error?.code).toBe(ErrorType.PAYMENT_CHARGE_REJECTED);
    expect((await eventsAbout(server, b.charge!.chargeId)).map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_FAIL"]);
    expect(await ledgerOf(b.charge!.customer!.id!)).toHaveLength(0);
  });
});

describe("bank failures", () => {
  it("insufficient funds fails the charge with ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS, GetCharge error and a CHARGE_FAIL event", async () => {
    const email = freshEmail();
    const { charge, paymentLink } = await createPayment(server, { buyer: { email } });
    const customerId = charge!.customer!.id!;
    await server.client(SandboxService).configureBankAccount({ customerId, balance: 1000n });
    const outcome = success(await payStepByStep(server, paymentLink!.url, { email }));
    expect(outcome.chargeStatus).toBe(ChargeStatus.FAILURE);
    const target = new URL(outcome.redirectUrl);
    expect(`${target.origin}${target.pathname}`).toBe(redirect.failureUrl);
    expect(target.searchParams.get("error_code")).toBe("ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS");
    expect(target.searchParams.get("status")).toBe("CHARGE_STATUS_FAILURE");

    const res = await api(server, `/v1/charge/${charge!.chargeId}`);
    const body = await res.json();
    expect(body.charge).toMatchObject({
      chargeStatus: "CHARGE_STATUS_FAILURE",
      error: { code: "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS", message: "Customer has insufficient funds" },
    });
    const events = await eventsAbout(server, charge!.chargeId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "EVENT_TYPE_CHARGE_FAIL",
      content: {
        id: charge!.chargeId,
        customer: customerId,
        error: { code: "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS", message: "Customer has insufficient funds" },
      },
    });
    expect((await server.client(PaymentService).getContract({ contract: charge!.contractId })).contract?.status).toBe(
      ContractStatus.CANCELLED,
    );
    const { customer } = await server.client(PaymentService).getCustomer({ customer: customerId });
    expect(customer?.activated).toBe(false);
    const { account } = await server.client(SandboxService).getBankAccount({ customerId });
    expect(account?.balance).toBe(1000n);
    expect(account?.ledger).toHaveLength(0);
  });

  it("maintenance fails the charge with ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE", async () => {
    const merchant = await server.newMerchant("Maintenance Shop");
    const sandbox = server.client(SandboxService, merchant.api_key);
    const email = freshEmail();
    const { charge, paymentLink } = await createPayment(server, { buyer: { email } }, merchant.api_key);
    expect((await sandbox.setBankMaintenance({ underMaintenance: true })).underMaintenance).toBe(true);
    const outcome = success(await payStepByStep(server, paymentLink!.url, { email, apiKey: merchant.api_key }));
    expect(outcome.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect(outcome.error?.code).toBe(ErrorType.PAYMENT_GATEWAY_UNAVAILABLE);
    const { charge: read } = await server
      .client(PaymentService, merchant.api_key)
      .getCharge({ charge: charge!.chargeId });
    expect(read?.error).toMatchObject({
      code: ErrorType.PAYMENT_GATEWAY_UNAVAILABLE,
      message: "Payment gateway currently unavailable",
    });
    const [event] = await eventsAbout(server, charge!.chargeId);
    expect(event.content.error.code).toBe("ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE");
    expect((await sandbox.setBankMaintenance({ underMaintenance: false })).underMaintenance).toBe(false);
  });
});

for (const dialect of dialects) {
  describe(`approval happens once (${dialect})`, () => {
    let db: TestServer;
    beforeAll(async () => {
      db = dialect === testDialect ? server : await startTestServer({ dialect });
    });
    afterAll(async () => {
      if (db !== server) await db?.stop();
    });

    it("charges once for concurrent ApprovePayment calls (double click, two tabs), and every call answers the same outcome", async () => {
      const email = freshEmail();
      const { charge, paymentLink } = await createPayment(db, { buyer: { email } });
      const token = tokenOf(paymentLink!.url);
      const page = db.client(HostedPageService);
      await page.sendTwoFactorCode({ token });
      await page.verifyTwoFactorCode({ token, code: await latestCode(db, email) });
      await page.linkBankAccount({
        token,
        bankCode: "0001",
        branchCode: "001",
        accountNumber: "7654321",
        accountHolder: "ヤマダ",
      });
      // A slow bank widens the window in which the calls overlap.
      await db.client(SandboxService).configureBankAccount({ customerId: charge!.customer!.id!, latencyMs: 100 });

      // Count the calls that reach the bank: the claim lets exactly one through.
      const bank = db.ctx.bank;
      const debit = bank.debit;
      let bankCalls = 0;
      bank.debit = (request) => {
        bankCalls++;
        return debit.call(bank, request);
      };
      const answers = await Promise.all([
        page.approvePayment({ token }),
        page.approvePayment({ token }),
        page.approvePayment({ token }),
      ]).finally(() => {
        bank.debit = debit;
      });
      expect(bankCalls).toBe(1);
      const outcomes = answers.map(success);
      expect(new Set(outcomes.map((o) => o.redirectUrl)).size).toBe(1);
      expect(outcomes.every((o) => o.chargeStatus === ChargeStatus.SUCCESS)).toBe(true);
      const again = success(await page.approvePayment({ token }));
      expect(again.redirectUrl).toBe(outcomes[0].redirectUrl);

      const ledger = await db.ctx.tx.db
        .selectFrom("bank_ledger")
        .selectAll()
        .where("customer_id", "=", charge!.customer!.id!)
        .execute();
      expect(ledger).toHaveLength(1);
      expect((await eventsAbout(db, charge!.chargeId)).map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
    });

    it("makes one customer of concurrent first requests for one e-mail", async () => {
      const email = freshEmail("race");
      const results = await Promise.all(Array.from({ length: 4 }, () => createPayment(db, { buyer: { email } })));
      expect(new Set(results.map((r) => r.charge?.customer?.id)).size).toBe(1);
    });
  });
}
