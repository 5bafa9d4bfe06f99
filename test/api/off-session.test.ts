import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import {
  ApiSource,
  AsyncStatus,
  ChargeStatus,
  ContractStatus,
  KycStatus,
  PaymentAuthorizationStatus,
} from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { ledgerOf } from "../../src/storage/bank-accounts.js";
import type { BankAccountTable } from "../../src/storage/schema.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.stop());

const minutes = (n: number) => n * 60_000;

function chargeBody(price = 1200) {
  return { price, description: "monthly box", metadata: { order: "A-1" } };
}

async function postAsync(json: object) {
  const res = await api(server, "/v1/payments/off-session/async", { method: "POST", json });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function postSync(json: object) {
  const res = await api(server, "/v1/payments/off-session", { method: "POST", json });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function getJson(path: string) {
  const res = await api(server, path);
  expect(res.status).toBe(200);
  return res.json();
}

/** The outbox rows about a charge, oldest first, with their content parsed. */
async function eventsOf(chargeId: string) {
  const rows = await server.ctx.tx.db
    .selectFrom("events")
    .selectAll()
    .where("charge_id", "=", chargeId)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => ({ type: row.event_type_name, content: JSON.parse(row.content_json) }));
}

async function setAccount(customerId: string, fields: Partial<BankAccountTable>) {
  await server.ctx.tx.write((trx) =>
    trx.updateTable("bank_accounts").set(fields).where("customer_id", "=", customerId).execute(),
  );
}

async function setCustomer(customerId: string, fields: { payment_status?: number; kyc_status?: number }) {
  await server.ctx.tx.write((trx) => trx.updateTable("customers").set(fields).where("id", "=", customerId).execute());
}

/** The one charge written for a customer (the sync call answers failures without it). */
async function onlyChargeOf(customerId: string) {
  const rows = await server.ctx.tx.db.selectFrom("charges").selectAll().where("customer_id", "=", customerId).execute();
  expect(rows).toHaveLength(1);
  return rows[0];
}

describe("CreateOffSessionPaymentAsync: requests that cannot start", () => {
  const causes: Array<{ cause: string; errorType: string; customer: () => Promise<string>; forceKyc?: boolean }> = [
    {
      cause: "an unknown customer",
      errorType: "ERROR_TYPE_PAYMENT_CUSTOMER_NOT_FOUND",
      customer: async () => "cus-doesnotexist",
    },
    {
      cause: "another merchant's customer",
      errorType: "ERROR_TYPE_PAYMENT_CUSTOMER_NOT_FOUND",
      customer: async () =>
        (await seedActiveCustomer(server, { merchantId: (await server.newMerchant()).merchant_id })).customerId,
    },
    {
      cause: "a customer without an ACTIVATED contract",
      errorType: "ERROR_TYPE_PAYMENT_CUSTOMER_INACTIVE",
      customer: async () => {
        const { customerId, contractId } = await seedActiveCustomer(server);
        await server.ctx.tx.write((trx) =>
          trx
            .updateTable("contracts")
            .set({ status: ContractStatus.DEACTIVATED })
            .where("id", "=", contractId)
            .execute(),
        );
        return customerId;
      },
    },
    {
      cause: "a NOT_AUTHORIZED customer, even with KYC approved",
      errorType: "ERROR_TYPE_PAYMENT_CUSTOMER_INACTIVE",
      customer: async () => {
        const { customerId } = await seedActiveCustomer(server, { kyc: KycStatus.APPROVED });
        await setCustomer(customerId, { payment_status: PaymentAuthorizationStatus.NOT_AUTHORIZED });
        return customerId;
      },
    },
    {
      cause: "force_kyc with KYC not approved",
      errorType: "ERROR_TYPE_PAYMENT_CHARGE_REJECTED",
      customer: async () => (await seedActiveCustomer(server, { kyc: KycStatus.IN_REVIEW })).customerId,
      forceKyc: true,
    },
  ];

  for (const { cause, errorType, customer, forceKyc } of causes) {
    it(`answers 200 FAILED_TO_START with a failed charge and CHARGE_FAIL for ${cause}`, async () => {
      const customerId = await customer();
      const { status, body } = await postAsync({
        customer_id: customerId,
        charge: chargeBody(),
        force_kyc: forceKyc ?? false,
      });
      expect(status).toBe(200);
      expect(body).toEqual({
        requestId: expect.stringMatching(/^pwf-/),
        status: "ASYNC_STATUS_FAILED_TO_START",
        chargeId: expect.stringMatching(/^trx-/),
        // The charge's error, so a client can tell a terminal refusal from a retryable one.
        error: {
          code: errorType,
          message: expect.any(String),
          details: [],
          genericCode: errorType === "ERROR_TYPE_PAYMENT_CHARGE_REJECTED" ? "KYC_REQUIRED" : "",
        },
      });

      const { charge } = await getJson(`/v1/charge/${body.chargeId}`);
      expect(charge).toMatchObject({
        chargeId: body.chargeId,
        chargeStatus: "CHARGE_STATUS_FAILURE",
        error: { code: errorType },
        apiSource: "API_SOURCE_OFF_SESSION_ASYNC",
      });
      const { request } = await getJson(`/v1/payments/off-session/async/${body.requestId}`);
      expect(request).toMatchObject({
        requestId: body.requestId,
        status: "ASYNC_STATUS_FAILED_TO_START",
        chargeId: body.chargeId,
        error: { code: errorType },
      });

      const events = await eventsOf(body.chargeId);
      expect(events.map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_FAIL"]);
      expect(events[0].content).toMatchObject({
        id: body.chargeId,
        customer: customerId,
        api_source: 2,
        final_amount: 1200,
        error: { code: errorType },
      });

      // Nothing is left to run and nothing reached the bank.
      await server.jobs.drain();
      expect(await ledgerOf(server.ctx.tx.db, customerId)).toEqual([]);
      const jobs = await server.ctx.tx.db.selectFrom("jobs").select("id").where("ref_id", "=", body.chargeId).execute();
      expect(jobs).toEqual([]);
    });
  }

  it("starts a force_kyc request when KYC is approved", async () => {
    const { customerId } = await seedActiveCustomer(server, { kyc: KycStatus.APPROVED });
    const { body } = await postAsync({ customer_id: customerId, charge: chargeBody(), force_kyc: true });
    expect(body.status).toBe("ASYNC_STATUS_PENDING");
    await server.jobs.drain();
    expect((await getJson(`/v1/payments/off-session/async/${body.requestId}`)).request.status).toBe(
      "ASYNC_STATUS_SUCCEEDED",
    );
  });

  it("refuses a malformed request with 400 and writes nothing", async () => {
    const before = await server.ctx.tx.db
      .selectFrom("charges")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    const { status, body } = await postAsync({ customer_id: "not-a-customer", charge: chargeBody() });
    expect(status).toBe(400);
    expect(body.code).toBe("invalid_argument");
    const after = await server.ctx.tx.db
      .selectFrom("charges")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});

describe("the asynchronous engine and the simulated bank", () => {
  it("charges a customer: PENDING, then SUCCEEDED with one debit and CHARGE_SUCCESS", async () => {
    const { customerId } = await seedActiveCustomer(server, { balance: 10_000 });
    const { status, body, headers } = await postAsync({ customer_id: customerId, charge: chargeBody(1200) });
    expect(status).toBe(200);
    expect(body.status).toBe("ASYNC_STATUS_PENDING");
    expect(headers.get("deprecation")).toBeNull();
    await server.jobs.drain();

    const { request } = await getJson(`/v1/payments/off-session/async/${body.requestId}`);
    expect(request).toMatchObject({ status: "ASYNC_STATUS_SUCCEEDED", chargeId: body.chargeId, attempts: 1 });
    expect(request).not.toHaveProperty("error");
    const { charge } = await getJson(`/v1/charge/${body.chargeId}`);
    expect(charge).toMatchObject({
      chargeStatus: "CHARGE_STATUS_SUCCESS",
      finalAmount: 1200,
      customerId,
      requestId: body.requestId,
      metadata: { order: "A-1" },
    });
    expect(charge).not.toHaveProperty("error");
    const ledger = await ledgerOf(server.ctx.tx.db, customerId);
    expect(ledger).toEqual([expect.objectContaining({ reference: body.chargeId, amount: -1200, balanceAfter: 8800 })]);
    const events = await eventsOf(body.chargeId);
    expect(events.map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
    expect(events[0].content).toMatchObject({
      id: body.chargeId,
      customer: customerId,
      merchant_name: "Test Shop",
      api_source: 2,
      final_amount: 1200,
    });
    expect(events[0].content).not.toHaveProperty("error");
  });

  const terminal: Array<{ failure: string; errorType: string; account: Partial<BankAccountTable>; price: number }> = [
    {
      failure: "insufficient funds",
      errorType: "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS",
      account: { balance: 500 },
      price: 1000,
    },
    {
      failure: "a payment over the quota",
      errorType: "ERROR_TYPE_PAYMENT_CHARGE_OVER_LIMIT",
      account: { quota: 5000 },
      price: 6000,
    },
    {
      failure: "a rejecting bank",
      errorType: "ERROR_TYPE_PAYMENT_GATEWAY_FAILED",
      account: { reject: 1 },
      price: 1000,
    },
  ];
  for (const { failure, errorType, account, price } of terminal) {
    it(`fails at once on ${failure}: FAILED, charge FAILURE, CHARGE_FAIL, no debit`, async () => {
      const { customerId } = await seedActiveCustomer(server);
      await setAccount(customerId, account);
      const { body } = await postAsync({ customer_id: customerId, charge: chargeBody(price) });
      expect(body.status).toBe("ASYNC_STATUS_PENDING");
      await server.jobs.drain();

      const { request } = await getJson(`/v1/payments/off-session/async/${body.requestId}`);
      expect(request).toMatchObject({ status: "ASYNC_STATUS_FAILED", attempts: 1, error: { code: errorType } });
      const { charge } = await getJson(`/v1/charge/${body.chargeId}`);
      expect(charge).toMatchObject({
        chargeStatus: "CHARGE_STATUS_FAILURE",
        error: { code: errorType, message: expect.any(String) },
      });
      const events = await eventsOf(body.chargeId);
      expect(events.map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_FAIL"]);
      expect(events[0].content).toMatchObject({
        id: body.chargeId,
        api_source: 2,
        error: { code: errorType, message: charge.error.message },
      });
      expect(await ledgerOf(server.ctx.tx.db, customerId)).toEqual([]);
      // Terminal: no retry is scheduled.
      server.clock.advance(minutes(120));
      await server.jobs.drain();
      expect((await getJson(`/v1/payments/off-session/async/${body.requestId}`)).request.attempts).toBe(1);
    });
  }

  it("retries through a maintenance window on the schedule and succeeds once it ends", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const merchantId = server.merchant.merchant_id;
    const windowEnd = new Date(server.clock.now().getTime() + minutes(5)).toISOString();
    await server.ctx.tx.write((trx) =>
      trx
        .insertInto("bank_settings")
        .values({ merchant_id: merchantId, under_maintenance: 1, maintenance_until: windowEnd })
        .execute(),
    );
    try {
      const { body } = await postAsync({ customer_id: customerId, charge: chargeBody(700) });
      await server.jobs.drain();
      const poll = async () => (await getJson(`/v1/payments/off-session/async/${body.requestId}`)).request;
      expect(await poll()).toMatchObject({ status: "ASYNC_STATUS_RUNNING", attempts: 1 });
      expect((await getJson(`/v1/charge/${body.chargeId}`)).charge.chargeStatus).toBe("CHARGE_STATUS_PENDING");
      expect(await eventsOf(body.chargeId)).toEqual([]);

      // Attempt 2 is due 2 minutes after attempt 1, not before.
      server.clock.advance(minutes(2) - 1000);
      await server.jobs.drain();
      expect((await poll()).attempts).toBe(1);
      server.clock.advance(1000);
      await server.jobs.drain();
      expect(await poll()).toMatchObject({ status: "ASYNC_STATUS_RUNNING", attempts: 2 });

      // Attempt 3, 4 minutes later, finds the window over.
      server.clock.advance(minutes(4));
      await server.jobs.drain();
      expect(await poll()).toMatchObject({ status: "ASYNC_STATUS_SUCCEEDED", attempts: 3 });
      expect((await getJson(`/v1/charge/${body.chargeId}`)).charge.chargeStatus).toBe("CHARGE_STATUS_SUCCESS");
      expect((await eventsOf(body.chargeId)).map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
      expect(await ledgerOf(server.ctx.tx.db, customerId)).toHaveLength(1);
    } finally {
      await server.ctx.tx.write((trx) =>
        trx.deleteFrom("bank_settings").where("merchant_id", "=", merchantId).execute(),
      );
    }
  });

  it("gives up after 6 attempts over about an hour with GATEWAY_UNAVAILABLE", async () => {
    const { customerId } = await seedActiveCustomer(server);
    await setAccount(customerId, { under_maintenance: 1 });
    const { body } = await postAsync({ customer_id: customerId, charge: chargeBody(700) });
    await server.jobs.drain();
    for (const wait of [2, 4, 8, 16]) {
      server.clock.advance(minutes(wait));
      await server.jobs.drain();
    }
    const poll = async () => (await getJson(`/v1/payments/off-session/async/${body.requestId}`)).request;
    expect(await poll()).toMatchObject({ status: "ASYNC_STATUS_RUNNING", attempts: 5 });
    server.clock.advance(minutes(32));
    await server.jobs.drain();
    expect(await poll()).toMatchObject({
      status: "ASYNC_STATUS_FAILED",
      attempts: 6,
      error: { code: "ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE" },
    });
    const { charge } = await getJson(`/v1/charge/${body.chargeId}`);
    expect(charge).toMatchObject({
      chargeStatus: "CHARGE_STATUS_FAILURE",
      error: { code: "ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE", message: "Payment gateway currently unavailable" },
    });
    const events = await eventsOf(body.chargeId);
    expect(events.map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_FAIL"]);
    expect(events[0].content.error.code).toBe("ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE");
    expect(await ledgerOf(server.ctx.tx.db, customerId)).toEqual([]);
  });

  it("answers GetAsyncPaymentRequest over RPC, and 404 for an unknown or another merchant's request", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const created = await server
      .client(PaymentService)
      .createOffSessionPaymentAsync({ customerId, charge: chargeBody() });
    expect(created.status).toBe(AsyncStatus.PENDING);
    await server.jobs.drain();
    const { request } = await server.client(PaymentService).getAsyncPaymentRequest({ requestId: created.requestId });
    expect(request?.status).toBe(AsyncStatus.SUCCEEDED);

    const other = await server.newMerchant();
    const foreign = await api(server, `/v1/payments/off-session/async/${created.requestId}`, { apiKey: other.api_key });
    const missing = await api(server, "/v1/payments/off-session/async/pwf-nothing");
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect((await foreign.json()).code).toBe("not_found");
  });
});

describe("CreateOffSessionPayment (deprecated, synchronous)", () => {
  it("answers the settled charge with a Deprecation header", async () => {
    const { customerId } = await seedActiveCustomer(server, { balance: 5000 });
    const { status, headers, body } = await postSync({ customer_id: customerId, charge: chargeBody(2000) });
    expect(status).toBe(200);
    expect(headers.get("deprecation")).toBe("true");
    expect(body.charge).toMatchObject({
      chargeStatus: "CHARGE_STATUS_SUCCESS",
      finalAmount: 2000,
      customerId,
      apiSource: "API_SOURCE_OFF_SESSION_SYNC",
      currency: "JPY",
    });
    expect(body.charge.chargeId).toMatch(/^trx-/);
    expect(await ledgerOf(server.ctx.tx.db, customerId)).toEqual([
      expect.objectContaining({ reference: body.charge.chargeId, amount: -2000 }),
    ]);
    const events = await eventsOf(body.charge.chargeId);
    expect(events.map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
    expect(events[0].content.api_source).toBe(1);
  });

  const failures: Array<{
    failure: string;
    errorType: string;
    paymentErrorCode: string;
    httpStatus: number;
    connectCode: string;
    arrange: (customerId: string) => Promise<{ customerId?: string; price?: number; forceKyc?: boolean }>;
  }> = [
    {
      failure: "an unknown customer",
      errorType: "ERROR_TYPE_PAYMENT_CUSTOMER_NOT_FOUND",
      paymentErrorCode: "PAYMENT_ERROR_CODE_CUSTOMER_NOT_FOUND",
      httpStatus: 400,
      connectCode: "invalid_argument",
      arrange: async () => ({ customerId: `cus-missing${Date.now()}` }),
    },
    {
      failure: "an inactive customer",
      errorType: "ERROR_TYPE_PAYMENT_CUSTOMER_INACTIVE",
      paymentErrorCode: "PAYMENT_ERROR_CODE_CUSTOMER_INACTIVE",
      httpStatus: 400,
      connectCode: "invalid_argument",
      arrange: async (customerId) => {
        await setCustomer(customerId, { payment_status: PaymentAuthorizationStatus.NOT_AUTHORIZED });
        return {};
      },
    },
    {
      failure: "force_kyc without KYC",
      errorType: "ERROR_TYPE_PAYMENT_CHARGE_REJECTED",
      paymentErrorCode: "PAYMENT_ERROR_CODE_KYC_REQUIRED",
      httpStatus: 500,
      connectCode: "internal",
      arrange: async () => ({ forceKyc: true }),
    },
    {
      failure: "insufficient funds",
      errorType: "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS",
      paymentErrorCode: "PAYMENT_ERROR_CODE_INSUFFICIENT_FUNDS",
      httpStatus: 500,
      connectCode: "internal",
      arrange: async (customerId) => {
        await setAccount(customerId, { balance: 100 });
        return {};
      },
    },
    {
      failure: "a payment over the quota",
      errorType: "ERROR_TYPE_PAYMENT_CHARGE_OVER_LIMIT",
      paymentErrorCode: "PAYMENT_ERROR_CODE_OVER_LIMIT",
      httpStatus: 500,
      connectCode: "internal",
      arrange: async (customerId) => {
        await setAccount(customerId, { quota: 1000 });
        return {};
      },
    },
    {
      failure: "a rejecting bank",
      errorType: "ERROR_TYPE_PAYMENT_GATEWAY_FAILED",
      paymentErrorCode: "PAYMENT_ERROR_CODE_REJECTED",
      httpStatus: 500,
      connectCode: "internal",
      arrange: async (customerId) => {
        await setAccount(customerId, { reject: 1 });
        return {};
      },
    },
    {
      failure: "a bank under maintenance",
      errorType: "ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE",
      paymentErrorCode: "PAYMENT_ERROR_CODE_UNDER_MAINTENANCE",
      httpStatus: 503,
      connectCode: "unavailable",
      arrange: async (customerId) => {
        await setAccount(customerId, { under_maintenance: 1 });
        return {};
      },
    },
  ];
  for (const { failure, errorType, paymentErrorCode, httpStatus, connectCode, arrange } of failures) {
    it(`answers ${httpStatus} ${connectCode} with ${errorType} for ${failure}, and keeps the failed charge`, async () => {
      const seeded = await seedActiveCustomer(server);
      const arranged = await arrange(seeded.customerId);
      const customerId = arranged.customerId ?? seeded.customerId;
      const { status, headers, body } = await postSync({
        customer_id: customerId,
        charge: chargeBody(arranged.price ?? 3000),
        force_kyc: arranged.forceKyc ?? false,
      });
      expect(status).toBe(httpStatus);
      expect(headers.get("deprecation")).toBe("true");
      expect(body.code).toBe(connectCode);
      const info = body.details.find((d: { type: string }) => d.type === "google.rpc.ErrorInfo").debug;
      expect(info).toMatchObject({ reason: errorType, metadata: { paymentErrorCode } });

      const row = await onlyChargeOf(customerId);
      expect(row).toMatchObject({
        status: ChargeStatus.FAILURE,
        api_source: ApiSource.OFF_SESSION_SYNC,
        amount: arranged.price ?? 3000,
      });
      const { charge } = await getJson(`/v1/charge/${row.id}`);
      expect(charge.error.code).toBe(errorType);
      const events = await eventsOf(row.id);
      expect(events.map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_FAIL"]);
      expect(events[0].content).toMatchObject({ api_source: 1, error: { code: errorType } });
      expect(await ledgerOf(server.ctx.tx.db, customerId)).toEqual([]);
    });
  }

  it("gives Connect clients the code and the ErrorInfo detail", async () => {
    const { customerId } = await seedActiveCustomer(server);
    await setAccount(customerId, { under_maintenance: 1 });
    const error = await server
      .client(PaymentService)
      .createOffSessionPayment({ customerId, charge: chargeBody() })
      .then(
        () => undefined,
        (e) => ConnectError.from(e),
      );
    expect(error?.code).toBe(Code.Unavailable);
    expect(error?.metadata.get("deprecation")).toBe("true");
    const [info] = error!.findDetails(ErrorInfoSchema);
    expect(info.reason).toBe("ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE");
    expect(info.metadata.paymentErrorCode).toBe("PAYMENT_ERROR_CODE_UNDER_MAINTENANCE");
  });

  it("leaves no synchronous charge PENDING when its call died: the engine settles it", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const bank = server.ctx.bank;
    const debit = bank.debit;
    bank.debit = async () => {
      throw new Error("connection reset by the bank");
    };
    try {
      const { status } = await postSync({ customer_id: customerId, charge: chargeBody(900) });
      expect(status).toBe(500);
    } finally {
      bank.debit = debit;
    }
    const row = await onlyChargeOf(customerId);
    expect(row.status).toBe(ChargeStatus.PENDING);
    server.clock.advance(minutes(1));
    await server.jobs.drain();
    const { charge } = await getJson(`/v1/charge/${row.id}`);
    expect(charge.chargeStatus).toBe("CHARGE_STATUS_SUCCESS");
    expect(await ledgerOf(server.ctx.tx.db, customerId)).toHaveLength(1);
    expect((await eventsOf(row.id)).map((e) => e.type)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
  });
});
