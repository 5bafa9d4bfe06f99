import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus, ContractStatus, ErrorType, PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { signedInUser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { createPayment, freshEmail, latestCode, redirect, tokenOf } from "../helpers/on-session.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";
import { receiveWebhooksOf, type WebhookReceiver } from "../helpers/webhook-receiver.js";

// docs/reference/contract.md#error-triggers: every ErrorType at every trigger point.

let server: TestServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await receiveWebhooksOf(server.ctx, server.merchant);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const errorTypes = Object.values(ErrorType).filter(
  (v): v is ErrorType => typeof v === "number" && v !== ErrorType.UNSPECIFIED,
);
const nameOf = (errorType: ErrorType) => `ERROR_TYPE_${ErrorType[errorType]}`;
const trigger = (errorType: ErrorType | string) => ({
  triggerError: typeof errorType === "string" ? errorType : nameOf(errorType),
});

/** docs/reference/contract.md#error-triggers: the trigger table, and the HTTP status that follows from it. */
const expected: Record<ErrorType, { code: PaymentErrorCode; connect: string; status: number }> = {
  [ErrorType.UNSPECIFIED]: { code: PaymentErrorCode.OTHER, connect: "internal", status: 500 },
  [ErrorType.PAYMENT_VALIDATION_FAILED]: {
    code: PaymentErrorCode.BAD_REQUEST,
    connect: "invalid_argument",
    status: 400,
  },
  [ErrorType.PAYMENT_CHARGE_FAILED]: { code: PaymentErrorCode.INTERNAL, connect: "internal", status: 500 },
  [ErrorType.PAYMENT_LINK_EXPIRED]: { code: PaymentErrorCode.EXPIRED, connect: "internal", status: 500 },
  [ErrorType.PAYMENT_GATEWAY_FAILED]: { code: PaymentErrorCode.REJECTED, connect: "internal", status: 500 },
  [ErrorType.PAYMENT_GATEWAY_UNAVAILABLE]: {
    code: PaymentErrorCode.UNDER_MAINTENANCE,
    connect: "unavailable",
    status: 503,
  },
  [ErrorType.PAYMENT_CHARGE_OVER_LIMIT]: { code: PaymentErrorCode.OVER_LIMIT, connect: "internal", status: 500 },
  [ErrorType.PAYMENT_CHARGE_REJECTED]: { code: PaymentErrorCode.KYC_REQUIRED, connect: "internal", status: 500 },
  [ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS]: {
    code: PaymentErrorCode.INSUFFICIENT_FUNDS,
    connect: "internal",
    status: 500,
  },
  [ErrorType.PAYMENT_CUSTOMER_NOT_FOUND]: { code: PaymentErrorCode.OTHER, connect: "internal", status: 500 },
  [ErrorType.PAYMENT_CUSTOMER_INACTIVE]: { code: PaymentErrorCode.OTHER, connect: "internal", status: 500 },
};

/** The webhooks delivered about a charge, in arrival order, once everything due has gone out. */
async function webhooksAbout(chargeId: string) {
  await server.webhooks.drain();
  return receiver.delivered.filter((w) => w.content.id === chargeId);
}

async function chargeJson(chargeId: string) {
  const res = await api(server, `/v1/charge/${chargeId}`);
  expect(res.status).toBe(200);
  return (await res.json()).charge;
}

/** The customer's steps without InitiatePayment (which answers the two InitiatePayment triggers itself). */
async function approveDirectly(paymentLinkUrl: string, email: string, needsBankLink: boolean) {
  const page = server.client(HostedPageService);
  const token = tokenOf(paymentLinkUrl);
  await page.sendTwoFactorCode({ token });
  expect((await page.verifyTwoFactorCode({ token, code: await latestCode(server, email) })).verified).toBe(true);
  if (needsBankLink)
    await page.linkBankAccount({
      token,
      bankCode: "0001",
      branchCode: "001",
      accountNumber: "1234567",
      accountHolder: "ヤマダ タロウ",
    });
  return page.approvePayment({ token });
}

/** The charge.created, charge.fail pair of the trigger flow, checked field by field. */
function expectTriggerEvents(
  webhooks: Awaited<ReturnType<typeof webhooksAbout>>,
  errorType: ErrorType,
  apiSource: number,
) {
  expect(webhooks.map((w) => w.event_type)).toEqual(["charge.created", "charge.fail"]);
  const [created, failed] = webhooks;
  expect(created.content).toMatchObject({ api_source: apiSource, status: "CHARGE_STATUS_PENDING" });
  expect(created.content.error).toBeUndefined();
  expect(failed.content).toMatchObject({
    api_source: apiSource,
    status: "CHARGE_STATUS_FAILURE",
    error: { code: nameOf(errorType), details: [] },
  });
  expect((failed.content.error as { message: string }).message).toContain(nameOf(errorType));
}

describe("InitiatePayment", () => {
  it.each(errorTypes.map((t) => [nameOf(t), t] as const))("%s", async (_, errorType) => {
    const email = freshEmail("initiate");
    const { charge, paymentLink } = await createPayment(server, {
      buyer: { email },
      charge: { price: 1500, description: "tea", metadata: trigger(errorType) },
    });
    const { result } = await server.client(HostedPageService).initiatePayment({ token: tokenOf(paymentLink!.url) });
    const triggers = errorType === ErrorType.PAYMENT_VALIDATION_FAILED || errorType === ErrorType.PAYMENT_LINK_EXPIRED;
    if (!triggers) {
      // docs/reference/contract.md#error-triggers: any other value is ignored and the flow proceeds.
      expect(result?.outcome.case).toBe("session");
      expect(result?.outcome.value).toMatchObject({ amount: 1500, completed: false });
    } else {
      expect(result?.outcome.case).toBe("error");
      const error = result!.outcome.value as { errorCode: PaymentErrorCode; errorMessage: string; merchant: unknown };
      expect(error.errorCode).toBe(expected[errorType].code);
      expect(error.errorMessage).toMatch(new RegExp(`test error triggered.*${nameOf(errorType)}`));
      expect(error.merchant).toMatchObject({
        token: tokenOf(paymentLink!.url),
        name: "Test Shop",
        logoUrl: "",
        redirect,
      });
    }
    // Nothing is written by InitiatePayment: the charge waits, no event.
    expect((await chargeJson(charge!.chargeId)).chargeStatus).toBe("CHARGE_STATUS_PENDING");
    expect(await webhooksAbout(charge!.chargeId)).toEqual([]);
  });

  it("reads a CONTRACT link's trigger from the customer's metadata, not the charge group", async () => {
    const email = freshEmail("initiate-contract");
    const contractOnly = await createPayment(server, {
      buyer: { email, metadata: trigger(ErrorType.PAYMENT_LINK_EXPIRED) },
      charge: { description: "register" },
    });
    const answer = await server
      .client(HostedPageService)
      .initiatePayment({ token: tokenOf(contractOnly.paymentLink!.url) });
    expect(answer.result?.outcome.value).toMatchObject({ errorCode: PaymentErrorCode.EXPIRED });
    const withCharge = await createPayment(server, {
      buyer: { email: freshEmail(), metadata: trigger(ErrorType.PAYMENT_LINK_EXPIRED) },
    });
    expect(
      (await server.client(HostedPageService).initiatePayment({ token: tokenOf(withCharge.paymentLink!.url) })).result
        ?.outcome.case,
    ).toBe("session");
  });
});

type Workflow = "CHARGE" | "ONE_TIME_CHARGE" | "CONTRACT" | "CONTRACT_WITH_CHARGE";

/** A payment link of the workflow, with the trigger where docs/reference/contract.md#error-triggers says that workflow reads it. */
async function linkOf(workflow: Workflow, metadata: Record<string, string>) {
  const email = freshEmail(workflow.toLowerCase());
  if (workflow === "CHARGE") {
    const { customerId, contractId } = await seedActiveCustomer(server, { email });
    const created = await createPayment(server, { buyer: { email, customerId }, charge: { price: 800, metadata } });
    return { created, email, customerId, contractId, needsBankLink: false };
  }
  const created =
    workflow === "ONE_TIME_CHARGE"
      ? await createPayment(server, { buyer: { email }, charge: { price: 800, oneOffCharge: true, metadata } })
      : workflow === "CONTRACT"
        ? await createPayment(server, { buyer: { email, metadata }, charge: { description: "register" } })
        : await createPayment(server, { buyer: { email }, charge: { price: 800, metadata } });
  return {
    created,
    email,
    customerId: created.charge!.customer?.id ?? "",
    contractId: created.charge!.contractId,
    needsBankLink: true,
  };
}

/** docs/reference/contract.md#approve-side-effects */
const sideEffects: Record<Workflow, { failedTransaction: boolean; cancelledContract: boolean; chargeFail: boolean }> = {
  CHARGE: { failedTransaction: true, cancelledContract: false, chargeFail: true },
  ONE_TIME_CHARGE: { failedTransaction: true, cancelledContract: false, chargeFail: true },
  CONTRACT: { failedTransaction: false, cancelledContract: true, chargeFail: false },
  CONTRACT_WITH_CHARGE: { failedTransaction: true, cancelledContract: true, chargeFail: true },
};

describe("ApprovePayment (after the two-factor step)", () => {
  const cases = (Object.keys(sideEffects) as Workflow[]).flatMap((workflow) =>
    errorTypes.map((t) => [workflow, nameOf(t), t] as const),
  );

  it.each(cases)("%s × %s", async (workflow, _, errorType) => {
    const link = await linkOf(workflow, trigger(errorType));
    const { result } = await approveDirectly(link.created.paymentLink!.url, link.email, link.needsBankLink);
    expect(result?.outcome.case).toBe("error");
    const error = result!.outcome.value as { errorCode: PaymentErrorCode; errorMessage: string; redirectUrl: string };
    expect(error.errorCode).toBe(expected[errorType].code);
    expect(error.errorMessage).toMatch(new RegExp(`test error triggered.*${nameOf(errorType)}`));
    expect(error.redirectUrl).toContain(`${redirect.failureUrl}?`);
    expect(error.redirectUrl).toContain(`error_code=${nameOf(errorType)}`);

    const effects = sideEffects[workflow];
    const chargeId = link.created.charge!.chargeId;
    expect(chargeId !== "").toBe(effects.failedTransaction);
    if (effects.failedTransaction) {
      expect(await chargeJson(chargeId)).toMatchObject({
        chargeStatus: "CHARGE_STATUS_FAILURE",
        error: { code: nameOf(errorType) },
      });
    }
    // A one-off charge has no contract; CHARGE leaves the customer's active one as it was.
    if (workflow !== "ONE_TIME_CHARGE") {
      const contract = await server.client(PaymentService).getContract({ contract: link.contractId });
      expect(contract.contract?.status).toBe(
        effects.cancelledContract ? ContractStatus.CANCELLED : ContractStatus.ACTIVATED,
      );
    }

    if (effects.chargeFail) expectTriggerEvents(await webhooksAbout(chargeId), errorType, 3);
    await server.webhooks.drain();
    if (!effects.chargeFail)
      expect(receiver.delivered.filter((w) => w.content.customer === link.customerId)).toEqual([]);

    // Approving again answers the same error, and changes nothing more.
    const again = await server
      .client(HostedPageService)
      .approvePayment({ token: tokenOf(link.created.paymentLink!.url) });
    expect(again.result?.outcome.value).toMatchObject({ errorCode: expected[errorType].code });
    if (effects.chargeFail) expect(await webhooksAbout(chargeId)).toHaveLength(2);
  });
});

type OffSessionPath = {
  label: string;
  path: string;
  apiSource: number;
  body: (customerId: string, metadata: Record<string, string>) => object;
};

const offSessionPaths: OffSessionPath[] = [
  {
    label: "off-session sync",
    path: "/v1/payments/off-session",
    apiSource: 1,
    body: (customerId, metadata) => ({ customer_id: customerId, charge: { price: 900, description: "box", metadata } }),
  },
  {
    label: "off-session async",
    path: "/v1/payments/off-session/async",
    apiSource: 2,
    body: (customerId, metadata) => ({ customer_id: customerId, charge: { price: 900, description: "box", metadata } }),
  },
  {
    label: "withdraw",
    path: "/api/v1/payment/withdraw",
    apiSource: 1,
    body: (customerId, metadata) => ({
      merchant_customer_id: customerId,
      charge: { price: 900, description: "box", metadata },
    }),
  },
];

describe.each(offSessionPaths)("$label", ({ path, apiSource, body }) => {
  it.each(errorTypes.map((t) => [nameOf(t), t] as const))("%s", async (_, errorType) => {
    const { customerId } = await seedActiveCustomer(server);
    const res = await api(server, path, { method: "POST", json: body(customerId, trigger(errorType)) });
    expect(res.status).toBe(expected[errorType].status);
    const answer = await res.json();
    expect(answer.code).toBe(expected[errorType].connect);
    expect(answer.message).toMatch(new RegExp(`test error triggered.*${nameOf(errorType)}`));
    const info = answer.details.find((d: { type: string }) => d.type === "google.rpc.ErrorInfo").debug;
    const paymentError = answer.details.find((d: { type: string }) => d.type === "payments.v1.PaymentError").debug;
    expect(info).toMatchObject({
      reason: nameOf(errorType),
      metadata: { paymentErrorCode: `PAYMENT_ERROR_CODE_${PaymentErrorCode[expected[errorType].code]}` },
    });
    expect(paymentError).toMatchObject({ code: nameOf(errorType), errorType: nameOf(errorType) });

    // Records: a failed transaction and a payment workflow (pwf-*) record, named in the details.
    const { chargeId, requestId } = info.metadata;
    expect(chargeId).toMatch(/^trx-/);
    expect(requestId).toMatch(/^pwf-/);
    const charge = await chargeJson(chargeId);
    expect(charge).toMatchObject({
      chargeStatus: "CHARGE_STATUS_FAILURE",
      customerId,
      initialAmount: 900,
      error: { code: nameOf(errorType) },
      requestId,
    });
    expect(charge.apiSource).toBe(apiSource === 1 ? "API_SOURCE_OFF_SESSION_SYNC" : "API_SOURCE_OFF_SESSION_ASYNC");
    const request = await api(server, `/v1/payments/off-session/async/${requestId}`);
    expect((await request.json()).request).toMatchObject({
      status: "ASYNC_STATUS_FAILED",
      chargeId,
      attempts: 0,
      error: { code: nameOf(errorType) },
    });
    // No bank call was made.
    const { account } = await server.client(SandboxService).getBankAccount({ customerId });
    expect(account?.ledger).toEqual([]);

    expectTriggerEvents(await webhooksAbout(chargeId), errorType, apiSource);
  });
});

describe("idempotency", () => {
  it("the same key replays the triggered error, with no second charge", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const send = () =>
      api(server, "/v1/payments/off-session/async", {
        method: "POST",
        headers: { "idempotency-key": `trigger-${customerId}` },
        json: {
          customer_id: customerId,
          charge: { price: 900, metadata: trigger(ErrorType.PAYMENT_GATEWAY_UNAVAILABLE) },
        },
      });
    const first = await send();
    const again = await send();
    expect([first.status, again.status]).toEqual([503, 503]);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    const charges = await server.ctx.tx.db
      .selectFrom("charges")
      .select("id")
      .where("customer_id", "=", customerId)
      .execute();
    expect(charges).toHaveLength(1);
  });
});

describe("an invalid or unrecognised triggerError", () => {
  it.each(offSessionPaths)("$label: 400 BAD_REQUEST naming the field, and nothing written", async ({ path, body }) => {
    const { customerId } = await seedActiveCustomer(server);
    for (const value of ["ERROR_TYPE_NOPE", "error_type_payment_charge_failed", ""]) {
      const res = await api(server, path, { method: "POST", json: body(customerId, trigger(value)) });
      expect(res.status).toBe(400);
      const answer = await res.json();
      expect(answer).toMatchObject({ code: "invalid_argument" });
      expect(answer.message).toContain("charge.metadata.triggerError");
      expect(answer.details[0].debug).toMatchObject({
        reason: "ERROR_TYPE_PAYMENT_VALIDATION_FAILED",
        metadata: { paymentErrorCode: "PAYMENT_ERROR_CODE_BAD_REQUEST", field: "charge.metadata.triggerError" },
      });
    }
    const charges = await server.ctx.tx.db
      .selectFrom("charges")
      .select("id")
      .where("customer_id", "=", customerId)
      .execute();
    expect(charges).toEqual([]);
  });

  it("ApprovePayment: result.error BAD_REQUEST and the link stays open; InitiatePayment ignores it", async () => {
    const link = await linkOf("CONTRACT_WITH_CHARGE", trigger("ERROR_TYPE_NOPE"));
    const initiated = await server
      .client(HostedPageService)
      .initiatePayment({ token: tokenOf(link.created.paymentLink!.url) });
    expect(initiated.result?.outcome.case).toBe("session");
    const { result } = await approveDirectly(link.created.paymentLink!.url, link.email, true);
    expect(result?.outcome.value).toMatchObject({
      errorCode: PaymentErrorCode.BAD_REQUEST,
      errorMessage: expect.stringContaining('"ERROR_TYPE_NOPE" is not an ErrorType'),
    });
    expect((await chargeJson(link.created.charge!.chargeId)).chargeStatus).toBe("CHARGE_STATUS_PENDING");
    expect((await server.client(PaymentService).getContract({ contract: link.contractId })).contract?.status).toBe(
      ContractStatus.INITIAL,
    );
  });
});

describe("production mode", () => {
  let production: TestServer;
  beforeAll(async () => {
    production = await startTestServer({ env: { MODE: "production" } });
  });
  afterAll(async () => production?.stop());

  it("treats triggerError as ordinary metadata: the charge goes to the bank and succeeds", async () => {
    const { customerId } = await seedActiveCustomer(production);
    const metadata = trigger(ErrorType.PAYMENT_CHARGE_FAILED);
    const sync = await api(production, "/v1/payments/off-session", {
      method: "POST",
      json: { customer_id: customerId, charge: { price: 700, metadata } },
    });
    expect(sync.status).toBe(200);
    expect((await sync.json()).charge).toMatchObject({ chargeStatus: "CHARGE_STATUS_SUCCESS", metadata });

    const invalid = await api(production, "/v1/payments/off-session/async", {
      method: "POST",
      json: { customer_id: customerId, charge: { price: 300, metadata: trigger("nonsense") } },
    });
    expect(invalid.status).toBe(200);
    const { chargeId, status } = await invalid.json();
    expect(status).toBe("ASYNC_STATUS_PENDING");
    await production.jobs.drain();
    const charge = await production.client(PaymentService).getCharge({ charge: chargeId });
    expect(charge.charge).toMatchObject({ metadata: { triggerError: "nonsense" } });
    expect(charge.charge?.error).toBeUndefined();

    const events = await production.ctx.tx.db
      .selectFrom("events")
      .select("event_type_name")
      .where("merchant_id", "=", production.merchant.merchant_id)
      .execute();
    expect(events.map((e) => e.event_type_name)).not.toContain("charge.fail");
    // The withdraw endpoint does not exist in production.
    const withdraw = await api(production, "/api/v1/payment/withdraw", {
      method: "POST",
      json: { merchant_customer_id: customerId, charge: { price: 100, metadata } },
    });
    expect(withdraw.status).toBe(404);
  });
});

describe("where triggered failures show", () => {
  it("CompletePayment reports the triggered failure like the page sees it", async () => {
    const link = await linkOf("CONTRACT_WITH_CHARGE", trigger(ErrorType.PAYMENT_CHARGE_OVER_LIMIT));
    // InitiatePayment ignores OVER_LIMIT, so the customer's side runs up to the approval.
    const done = await server.client(SandboxService).completePayment({ paymentLinkUrl: link.created.paymentLink!.url });
    expect(done).toMatchObject({
      chargeStatus: ChargeStatus.FAILURE,
      errorCode: PaymentErrorCode.OVER_LIMIT,
      error: { code: ErrorType.PAYMENT_CHARGE_OVER_LIMIT },
    });
    expect(done.redirectUrl).toContain("error_code=ERROR_TYPE_PAYMENT_CHARGE_OVER_LIMIT");
  });

  it("a reload of a CONTRACT link failed by a trigger shows that ErrorType (it has no charge to hold it)", async () => {
    const link = await linkOf("CONTRACT", trigger(ErrorType.PAYMENT_GATEWAY_FAILED));
    await approveDirectly(link.created.paymentLink!.url, link.email, true);
    const { result } = await server
      .client(HostedPageService)
      .initiatePayment({ token: tokenOf(link.created.paymentLink!.url) });
    expect(result?.outcome.value).toMatchObject({
      completed: true,
      chargeStatus: ChargeStatus.FAILURE,
      error: { code: ErrorType.PAYMENT_GATEWAY_FAILED },
    });
  });

  it("the dashboard's customer detail and the customer's transaction list show them", async () => {
    const email = freshEmail("dashboard");
    const { customerId } = await seedActiveCustomer(server, { email });
    const ids: string[] = [];
    for (const errorType of [ErrorType.PAYMENT_CHARGE_FAILED, ErrorType.PAYMENT_GATEWAY_UNAVAILABLE]) {
      const res = await api(server, "/api/v1/payment/withdraw", {
        method: "POST",
        json: { merchant_customer_id: customerId, charge: { price: 400, metadata: trigger(errorType) } },
      });
      ids.push((await res.json()).details[0].debug.metadata.chargeId);
    }
    const link = await createPayment(server, {
      buyer: { email, customerId },
      charge: { price: 600, metadata: trigger(ErrorType.PAYMENT_CHARGE_REJECTED) },
    });
    await approveDirectly(link.paymentLink!.url, email, false);
    ids.push(link.charge!.chargeId);

    const ops = await signedInUser(server);
    const detail = await ops.client.getCustomerDetail({ customerId });
    const byId = new Map(detail.charges.map((c) => [c.chargeId, c]));
    expect(ids.map((id) => [byId.get(id)?.chargeStatus, byId.get(id)?.error?.code])).toEqual([
      [ChargeStatus.FAILURE, ErrorType.PAYMENT_CHARGE_FAILED],
      [ChargeStatus.FAILURE, ErrorType.PAYMENT_GATEWAY_UNAVAILABLE],
      [ChargeStatus.FAILURE, ErrorType.PAYMENT_CHARGE_REJECTED],
    ]);
    expect(byId.get(ids[0])?.error?.message).toContain("test error triggered");
    const list = await ops.client.listCharges({ customerId });
    expect(list.charges.map((c) => c.chargeId).sort()).toEqual([...ids].sort());
  });
});
