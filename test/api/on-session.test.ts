import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { sql } from "kysely";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import {
  ChargeStatus,
  ContractStatus,
  ErrorType,
  KycStatus,
  PaymentAuthorizationStatus,
  PaymentErrorCode,
  PaymentWorkflow,
} from "../../gen/payments/v1/enums_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { CreateOnSessionPaymentRequestSchema, PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { PaymentErrorSchema } from "../../gen/payments/v1/errors_pb.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { createPayment, eventsAbout, freshEmail, redirect, tokenOf } from "../helpers/on-session.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.stop());

const ninetyMinutes = 90 * 60 * 1000;

/** The plain HTTP body of a new customer paying ¥1,200, in snake_case (docs/reference/contract.md#wire-format). */
function httpBody(email = freshEmail()) {
  return {
    buyer: {
      email,
      name: "山田 太郎",
      katakana_last_name: "ヤマダ",
      katakana_first_name: "タロウ",
      birth_date: "1990-04-01",
      gender: "male",
      metadata: { crm: "A-1" },
    },
    charge: { price: 1200, description: "Coffee beans", metadata: { order: "42" } },
    redirect: { success_url: redirect.successUrl, failure_url: redirect.failureUrl },
  };
}

describe("CreateOnSessionPayment", () => {
  it("answers POST /v1/payments/on-session with the contract's charge and paymentLink", async () => {
    const email = freshEmail();
    const res = await api(server, "/v1/payments/on-session", { method: "POST", json: httpBody(email) });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.charge.id).toMatch(/^chg-[0-9a-z]{26}$/);
    expect(body.charge).toMatchObject({ price: 1200, description: "Coffee beans", metadata: { order: "42" } });
    expect(body.charge.customer.id).toMatch(/^cus-/);
    expect(body.charge.customer.email).toBe(email);
    expect(body.charge.customer.createdAt).toMatch(/Z$/);
    expect(body.charge.customer.updatedAt).toMatch(/Z$/);
    expect(body.paymentLink.url).toMatch(new RegExp(`^${server.ctx.config.publicBaseUrl}/pay/[0-9a-z]{32}$`));
    expect(Date.parse(body.paymentLink.expiresAt) - Date.parse(body.charge.customer.createdAt)).toBe(ninetyMinutes);
    expect(body.charge.expiresAt).toBe(body.paymentLink.expiresAt);
    expect(body.charge.workflow).toBe("PAYMENT_WORKFLOW_CONTRACT_WITH_CHARGE");
    expect(body.charge.chargeId).toMatch(/^trx-/);
    expect(body.charge.contractId).toMatch(/^con-/);
  });

  it("creates the trx- charge in PENDING, readable with GetCharge and tied to the chg- id", async () => {
    const { charge } = await createPayment(server);
    const { charge: read } = await server.client(PaymentService).getCharge({ charge: charge!.chargeId });
    expect(read?.chargeStatus).toBe(ChargeStatus.PENDING);
    expect(read?.onSessionChargeId).toBe(charge!.id);
    expect(read?.customerId).toBe(charge!.customer!.id);
    expect(read?.finalAmount).toBe(1200);
    expect(read?.metadata).toEqual({ order: "42" });
    expect(read?.error).toBeUndefined();
  });

  it("gives the new customer linkInitialized, KYC not submitted, payment not authorized, and an INITIAL contract", async () => {
    const { charge } = await createPayment(server);
    const { customer } = await server.client(PaymentService).getCustomer({ customer: charge!.customer!.id! });
    expect(customer).toMatchObject({ linkInitialized: true, activated: false });
    expect(customer?.status).toMatchObject({
      payment: PaymentAuthorizationStatus.NOT_AUTHORIZED,
      kyc: KycStatus.NOT_SUBMITTED,
    });
    const { contract } = await server.client(PaymentService).getContract({ contract: charge!.contractId });
    expect(contract?.status).toBe(ContractStatus.INITIAL);
    expect(contract?.customerId).toBe(customer?.id);
  });

  it("answers a retry with the same Idempotency-Key with the first response, creating one link", async () => {
    const body = httpBody();
    const headers = { "idempotency-key": `on-session-${Date.now()}` };
    const first = await (await api(server, "/v1/payments/on-session", { method: "POST", json: body, headers })).json();
    const again = await (await api(server, "/v1/payments/on-session", { method: "POST", json: body, headers })).json();
    expect(again.charge.id).toBe(first.charge.id);
    expect(again.paymentLink.url).toBe(first.paymentLink.url);
    const links = await server.ctx.tx.db
      .selectFrom("payment_links")
      .select("id")
      .where("customer_id", "=", first.charge.customer.id)
      .execute();
    expect(links).toHaveLength(1);
  });

  it("issues an unguessable token per link", async () => {
    const links = await Promise.all([createPayment(server), createPayment(server)]);
    const [a, b] = links.map((l) => tokenOf(l.paymentLink!.url));
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[0-9a-z]{32}$/);
  });
});

describe("workflows", () => {
  it("new customer with a price: CONTRACT_WITH_CHARGE", async () => {
    const { charge } = await createPayment(server);
    expect(charge?.workflow).toBe(PaymentWorkflow.CONTRACT_WITH_CHARGE);
  });

  it("new customer without a price: CONTRACT, no transaction, price 0", async () => {
    const { charge } = await createPayment(server, { charge: { description: "Register your account" } });
    expect(charge?.workflow).toBe(PaymentWorkflow.CONTRACT);
    expect(charge?.chargeId).toBe("");
    expect(charge?.price).toBe(0);
    expect(charge?.contractId).toMatch(/^con-/);
  });

  it("existing active customer with a charge, by id or by e-mail: CHARGE on the active contract", async () => {
    const email = freshEmail("active");
    const { customerId, contractId } = await seedActiveCustomer(server, { email });
    const byId = await createPayment(server, { buyer: { customerId }, charge: { price: 500 } });
    expect(byId.charge?.workflow).toBe(PaymentWorkflow.CHARGE);
    expect(byId.charge?.contractId).toBe(contractId);
    expect(byId.charge?.customer).toMatchObject({ id: customerId, email });
    const byEmail = await createPayment(server, { buyer: { email }, charge: { price: 500 } });
    expect(byEmail.charge?.workflow).toBe(PaymentWorkflow.CHARGE);
    expect(byEmail.charge?.customer?.id).toBe(customerId);
  });

  it("one_off_charge: ONE_TIME_CHARGE, no customer id in the response nor on the charge", async () => {
    const email = freshEmail("one-off");
    const res = await api(server, "/v1/payments/on-session", {
      method: "POST",
      json: { ...httpBody(email), charge: { price: 800, one_off_charge: true } },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.charge.workflow).toBe("PAYMENT_WORKFLOW_ONE_TIME_CHARGE");
    expect(body.charge.customer).not.toHaveProperty("id");
    expect(body.charge.customer.email).toBe(email);
    expect(body.charge.contractId).toBe("");
    const { charge } = await server.client(PaymentService).getCharge({ charge: body.charge.chargeId });
    expect(charge?.customerId).toBe("");
  });
});

/** The on-session rejection codes (docs/reference/contract.md#on-session-rejections), each over the plain HTTP path and over Connect. */
describe("rejections", () => {
  const inactiveCustomer = async () => (await createPayment(server)).charge!.customer!.id!;
  const cases: Array<{
    code: string;
    status: number;
    connect: Code;
    body: () => Promise<Record<string, unknown>>;
    messageHas?: string;
  }> = [
    {
      code: "ON_SESSION_PAYMENT_ERROR_CODE_MISSING_REDIRECT_URLS",
      status: 400,
      connect: Code.InvalidArgument,
      body: async () => ({ ...httpBody(), redirect: { success_url: redirect.successUrl } }),
      messageHas: "redirect",
    },
    {
      code: "ON_SESSION_PAYMENT_ERROR_CODE_MISSING_REQUIRED_PARAMETERS",
      status: 400,
      connect: Code.InvalidArgument,
      body: async () => ({ ...httpBody(), buyer: { name: "No Contact" } }),
      messageHas: "buyer",
    },
    {
      code: "ON_SESSION_PAYMENT_ERROR_CODE_MISSING_CHARGE",
      status: 400,
      connect: Code.InvalidArgument,
      body: async () => ({ buyer: { customer_id: await inactiveCustomer() }, redirect: httpBody().redirect }),
    },
    {
      code: "ON_SESSION_PAYMENT_ERROR_CODE_CUSTOMER_NOT_FOUND",
      status: 400,
      connect: Code.InvalidArgument,
      body: async () => ({
        buyer: { customer_id: "cus-doesnotexist" },
        charge: { price: 100 },
        redirect: httpBody().redirect,
      }),
    },
    {
      code: "ON_SESSION_PAYMENT_ERROR_CODE_CUSTOMER_INACTIVE",
      status: 400,
      connect: Code.InvalidArgument,
      body: async () => ({
        buyer: { customer_id: await inactiveCustomer() },
        charge: { price: 100 },
        redirect: httpBody().redirect,
      }),
    },
    {
      code: "ON_SESSION_PAYMENT_ERROR_CODE_VALIDATION_FAILED",
      status: 400,
      connect: Code.InvalidArgument,
      body: async () => ({ ...httpBody("not-an-email") }),
      messageHas: "buyer.email",
    },
    {
      code: "ON_SESSION_PAYMENT_ERROR_CODE_VALIDATION_FAILED",
      status: 400,
      connect: Code.InvalidArgument,
      body: async () => ({
        ...httpBody(),
        redirect: { success_url: "ftp://shop.example.jp/ok", failure_url: redirect.failureUrl },
      }),
      messageHas: "redirect.success_url",
    },
    {
      // INVALID_AMOUNT: a VALIDATION_FAILED naming the field.
      code: "ON_SESSION_PAYMENT_ERROR_CODE_VALIDATION_FAILED",
      status: 400,
      connect: Code.InvalidArgument,
      body: async () => ({ ...httpBody(), charge: { price: 10_000_001 } }),
      messageHas: "INVALID_AMOUNT",
    },
  ];

  for (const c of cases) {
    it(`${c.code} ${c.messageHas ?? ""} over HTTP`, async () => {
      const res = await api(server, "/v1/payments/on-session", { method: "POST", json: await c.body() });
      expect(res.status).toBe(c.status);
      const body = await res.json();
      expect(body.code).toBe(Code[c.connect].replace(/[A-Z]/g, (ch, i) => (i ? "_" : "") + ch.toLowerCase()));
      const info = body.details.find((d: { type: string }) => d.type === "google.rpc.ErrorInfo");
      expect(info.debug.reason).toBe(c.code);
      if (c.messageHas) expect(body.message).toContain(c.messageHas);
    });

    it(`${c.code} ${c.messageHas ?? ""} over Connect`, async () => {
      const body = await c.body();
      const raw = await fetch(`${server.url}/payments.v1.PaymentService/CreateOnSessionPayment`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${server.merchant.api_key}` },
        body: JSON.stringify(body),
      });
      expect(raw.status).toBe(c.status);
      const rawBody = await raw.json();
      expect(rawBody.details.find((d: { type: string }) => d.type === "google.rpc.ErrorInfo").debug.reason).toBe(
        c.code,
      );
      const thrown = await server
        .client(PaymentService)
        .createOnSessionPayment(fromJson(CreateOnSessionPaymentRequestSchema, body as JsonValue))
        .then(
          () => undefined,
          (e) => ConnectError.from(e),
        );
      expect(thrown?.code).toBe(c.connect);
      expect(thrown?.findDetails(ErrorInfoSchema)[0]?.reason).toBe(c.code);
      expect(thrown?.findDetails(PaymentErrorSchema)[0]?.code).toBe(c.code);
    });
  }

  it("charge.price 0 is INVALID_AMOUNT too, naming charge.price", async () => {
    const res = await api(server, "/v1/payments/on-session", {
      method: "POST",
      json: { ...httpBody(), charge: { price: 0 } },
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.message).toContain("charge.price");
    expect(body.message).toContain("INVALID_AMOUNT");
  });

  it("another merchant's customer is CUSTOMER_NOT_FOUND (no existence oracle)", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const other = await server.newMerchant();
    const error = await createPayment(server, { buyer: { customerId }, charge: { price: 100 } }, other.api_key).then(
      () => undefined,
      (e) => ConnectError.from(e),
    );
    expect(error?.findDetails(ErrorInfoSchema)[0]?.reason).toBe("ON_SESSION_PAYMENT_ERROR_CODE_CUSTOMER_NOT_FOUND");
  });

  it("STRATEGY_EXECUTION_FAILED while the merchant is suspended, over HTTP and Connect", async () => {
    const other = await server.newMerchant("Suspended Shop");
    await server.ctx.tx.write((trx) =>
      trx.updateTable("merchants").set({ onboarding_state: "suspended" }).where("id", "=", other.merchant_id).execute(),
    );
    const res = await api(server, "/v1/payments/on-session", {
      method: "POST",
      json: httpBody(),
      apiKey: other.api_key,
    });
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.code).toBe("internal");
    expect(body.details.find((d: { type: string }) => d.type === "google.rpc.ErrorInfo").debug.reason).toBe(
      "ON_SESSION_PAYMENT_ERROR_CODE_STRATEGY_EXECUTION_FAILED",
    );
    expect(body.message).toContain("suspended");
    const error = await createPayment(server, {}, other.api_key).then(
      () => undefined,
      (e) => ConnectError.from(e),
    );
    expect(error?.code).toBe(Code.Internal);
    expect(error?.findDetails(ErrorInfoSchema)[0]?.reason).toBe(
      "ON_SESSION_PAYMENT_ERROR_CODE_STRATEGY_EXECUTION_FAILED",
    );
    const customers = await server.ctx.tx.db
      .selectFrom("customers")
      .select("id")
      .where("merchant_id", "=", other.merchant_id)
      .execute();
    expect(customers).toHaveLength(0);
  });
});

describe("unexpected failures", () => {
  it("answer ON_SESSION_PAYMENT_ERROR_CODE_INTERNAL_ERROR (500) with no internals in the message", async () => {
    const broken = await startTestServer();
    try {
      // A storage failure the flow does not expect: the table of payment links is gone.
      await sql`drop table payment_links`.execute(broken.ctx.tx.db);
      const res = await api(broken, "/v1/payments/on-session", { method: "POST", json: httpBody() });
      expect(res.status).toBe(500);
      const body = await res.json();
      expect(body.code).toBe("internal");
      expect(body.details.find((d: { type: string }) => d.type === "google.rpc.ErrorInfo").debug.reason).toBe(
        "ON_SESSION_PAYMENT_ERROR_CODE_INTERNAL_ERROR",
      );
      expect(body.message).not.toContain("payment_links");
    } finally {
      await broken.stop();
    }
  });
});

describe("the e-mail reuse rule", () => {
  it("reuses the customer for the same e-mail (case and spaces ignored) and updates the supplied fields", async () => {
    const local = `Hanako.${process.pid}.${Date.now()}`;
    const first = await createPayment(server, {
      buyer: { email: `${local}@Example.JP`, name: "Hanako", metadata: { tier: "silver" } },
    });
    const second = await createPayment(server, {
      buyer: {
        email: `  ${local.toLowerCase()}@example.jp `,
        name: "山田 花子",
        address: "大阪府大阪市1-2",
        metadata: { tier: "gold" },
      },
    });
    const id = first.charge!.customer!.id!;
    expect(second.charge!.customer!.id).toBe(id);
    expect(second.charge!.id).not.toBe(first.charge!.id);
    const { customer } = await server.client(PaymentService).getCustomer({ customer: id });
    expect(customer).toMatchObject({ name: "山田 花子", address: "大阪府大阪市1-2", metadata: { tier: "gold" } });
    const { customers } = await server.client(PaymentService).listCustomers({ email: `${local}@example.jp` });
    expect(customers.map((c) => c.id)).toEqual([id]);
  });

  it("gives a customer that never activated a new link by e-mail, while by customer_id it is CUSTOMER_INACTIVE", async () => {
    const email = freshEmail("inactive");
    const first = await createPayment(server, { buyer: { email } });
    const again = await createPayment(server, { buyer: { email } });
    expect(again.charge?.workflow).toBe(PaymentWorkflow.CONTRACT_WITH_CHARGE);
    expect(again.charge?.customer?.id).toBe(first.charge?.customer?.id);
    expect(again.charge?.contractId).not.toBe(first.charge?.contractId);
    const error = await createPayment(server, {
      buyer: { customerId: first.charge!.customer!.id! },
      charge: { price: 100 },
    }).then(
      () => undefined,
      (e) => ConnectError.from(e),
    );
    expect(error?.findDetails(ErrorInfoSchema)[0]?.reason).toBe("ON_SESSION_PAYMENT_ERROR_CODE_CUSTOMER_INACTIVE");
  });

  it("keeps customers of different merchants apart", async () => {
    const email = freshEmail("shared");
    const other = await server.newMerchant();
    const mine = await createPayment(server, { buyer: { email } });
    const theirs = await createPayment(server, { buyer: { email } }, other.api_key);
    expect(mine.charge?.customer?.id).not.toBe(theirs.charge?.customer?.id);
  });

  it("makes one customer of concurrent first requests for one e-mail", async () => {
    const email = freshEmail("race");
    const results = await Promise.all(Array.from({ length: 5 }, () => createPayment(server, { buyer: { email } })));
    expect(new Set(results.map((r) => r.charge?.customer?.id)).size).toBe(1);
  });
});

describe("link expiry (90 minutes, on the injected clock)", () => {
  it("fails the unpaid charge with ERROR_TYPE_PAYMENT_LINK_EXPIRED, expires the contract, and records one CHARGE_FAIL event", async () => {
    const { charge, paymentLink } = await createPayment(server);
    const client = server.client(PaymentService);
    server.clock.advance(ninetyMinutes - 60_000);
    await server.jobs.drain();
    expect((await client.getCharge({ charge: charge!.chargeId })).charge?.chargeStatus).toBe(ChargeStatus.PENDING);

    server.clock.advance(60_000);
    await server.jobs.drain();
    const { charge: failed } = await client.getCharge({ charge: charge!.chargeId });
    expect(failed?.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect(failed?.error).toMatchObject({ code: ErrorType.PAYMENT_LINK_EXPIRED, message: "Payment link has expired" });
    expect((await client.getContract({ contract: charge!.contractId })).contract?.status).toBe(ContractStatus.EXPIRED);

    const events = await eventsAbout(server, charge!.chargeId);
    expect(events.map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_FAIL"]);
    expect(events[0].content).toMatchObject({
      id: charge!.chargeId,
      customer: charge!.customer!.id,
      error: { code: "ERROR_TYPE_PAYMENT_LINK_EXPIRED", message: "Payment link has expired" },
      on_session_charge_id: charge!.id,
      metadata: { order: "42" },
      api_source: 3,
    });

    const page = server.client(HostedPageService);
    const initiated = await page.initiatePayment({ token: tokenOf(paymentLink!.url) });
    expect(initiated.result?.outcome.case).toBe("error");
    const error = initiated.result?.outcome.value as {
      errorCode: PaymentErrorCode;
      merchant?: { name: string; redirect?: { failureUrl: string } };
    };
    expect(error.errorCode).toBe(PaymentErrorCode.EXPIRED);
    expect(error.merchant?.name).toBe("Test Shop");
    expect(error.merchant?.redirect?.failureUrl).toBe(redirect.failureUrl);
    const approved = await page.approvePayment({ token: tokenOf(paymentLink!.url) });
    expect(approved.result?.outcome.case).toBe("error");
    expect((approved.result!.outcome.value as { errorCode: PaymentErrorCode }).errorCode).toBe(
      PaymentErrorCode.EXPIRED,
    );
  });

  it("treats a lapsed link as expired on the page before the job has run, once", async () => {
    const { charge, paymentLink } = await createPayment(server);
    server.clock.advance(ninetyMinutes + 1000);
    const initiated = await server.client(HostedPageService).initiatePayment({ token: tokenOf(paymentLink!.url) });
    expect((initiated.result!.outcome.value as { errorCode: PaymentErrorCode }).errorCode).toBe(
      PaymentErrorCode.EXPIRED,
    );
    expect((await server.client(PaymentService).getCharge({ charge: charge!.chargeId })).charge?.chargeStatus).toBe(
      ChargeStatus.FAILURE,
    );
    await server.jobs.drain();
    expect(await eventsAbout(server, charge!.chargeId)).toHaveLength(1);
  });

  it("expires a contract-only link without a charge event", async () => {
    const { charge } = await createPayment(server, { charge: { description: "Register" } });
    server.clock.advance(ninetyMinutes);
    await server.jobs.drain();
    expect((await server.client(PaymentService).getContract({ contract: charge!.contractId })).contract?.status).toBe(
      ContractStatus.EXPIRED,
    );
  });

  it("an unknown token is result.error NOT_FOUND", async () => {
    const initiated = await server.client(HostedPageService).initiatePayment({ token: "nosuchtoken" });
    expect((initiated.result!.outcome.value as { errorCode: PaymentErrorCode }).errorCode).toBe(
      PaymentErrorCode.NOT_FOUND,
    );
    const approved = await server.client(HostedPageService).approvePayment({ token: "nosuchtoken" });
    expect((approved.result!.outcome.value as { errorCode: PaymentErrorCode }).errorCode).toBe(
      PaymentErrorCode.NOT_FOUND,
    );
  });
});
