import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { chargeRow } from "../helpers/charges.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { freshEmail, redirect } from "../helpers/on-session.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";

/** What docs/reference/errors.md and limits.md promise and nothing else pinned. */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.stop());

async function post(path: string, json: unknown) {
  const res = await api(server, path, { method: "POST", json });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

function infoOf(body: { details?: { type: string; debug: { reason: string; metadata: Record<string, string> } }[] }) {
  return body.details?.find((d) => d.type === "google.rpc.ErrorInfo")?.debug;
}

describe("the default message of every ERROR_TYPE", () => {
  // The spec's table, letter for letter.
  const messages: [ErrorType, string][] = [
    [ErrorType.PAYMENT_VALIDATION_FAILED, "Invalid payment request. Review input data."],
    [ErrorType.PAYMENT_GATEWAY_UNAVAILABLE, "Payment gateway currently unavailable"],
    [ErrorType.PAYMENT_GATEWAY_FAILED, "Payment gateway rejected request"],
    [ErrorType.PAYMENT_CHARGE_FAILED, "Payment failed. Please contact support."],
    [ErrorType.PAYMENT_CHARGE_REJECTED, "Customer has not completed KYC"],
    [ErrorType.PAYMENT_CHARGE_OVER_LIMIT, "Payment exceeds allowed limit"],
    [ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS, "Customer has insufficient funds"],
    [ErrorType.PAYMENT_LINK_EXPIRED, "Payment link has expired"],
    [ErrorType.PAYMENT_CUSTOMER_NOT_FOUND, "Customer ID not found"],
    [ErrorType.PAYMENT_CUSTOMER_INACTIVE, "Customer is not active. Issue a new payment link for them to complete."],
  ];

  it("is what a failed charge without a message of its own says, for all ten", async () => {
    expect(messages).toHaveLength(Object.keys(ErrorType).filter((k) => Number.isNaN(Number(k))).length - 1);
    for (const [errorType, message] of messages) {
      // A failed charge that kept no message of its own.
      const row = {
        ...chargeRow({ merchantId: server.merchant.merchant_id, status: ChargeStatus.FAILURE }, server.clock.now()),
        error_type: errorType,
        error_message: "",
      };
      await server.ctx.tx.write((trx) => trx.insertInto("charges").values(row).execute());
      const id = row.id;
      const res = await api(server, `/v1/charge/${id}`);
      const { charge } = await res.json();
      expect(charge.chargeStatus).toBe("CHARGE_STATUS_FAILURE");
      expect(charge.error.code).toBe(`ERROR_TYPE_${ErrorType[errorType]}`);
      expect(charge.error.message).toBe(message);
    }
  });
});

describe("a real charge event", () => {
  it("carries the whole charge body", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const { status, body } = await post("/v1/payments/off-session", {
      customer_id: customerId,
      charge: { price: 2500, description: "Matcha set", metadata: { order: "M-7" } },
    });
    expect(status).toBe(200);
    const chargeId = body.charge.chargeId;
    const rows = await server.ctx.tx.db.selectFrom("events").selectAll().where("charge_id", "=", chargeId).execute();
    expect(rows.map((row) => row.event_type_name)).toEqual(["EVENT_TYPE_CHARGE_SUCCESS"]);
    const content = JSON.parse(rows[0].content_json);
    const at = server.clock.now().toISOString();
    expect(content).toEqual({
      id: chargeId,
      customer: customerId,
      status: "CHARGE_STATUS_SUCCESS",
      description: "Matcha set",
      merchant_name: "Test Shop",
      initial_amount: 2500,
      discount: 0,
      final_amount: 2500,
      currency: "JPY",
      metadata: { order: "M-7" },
      api_source: 1,
      on_session_charge_id: "",
      request_id: "",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
    });
    expect(Date.parse(content.created_at)).toBeLessThanOrEqual(Date.parse(at));
    expect(Date.parse(content.updated_at)).toBeGreaterThanOrEqual(Date.parse(content.created_at));
    expect(content).not.toHaveProperty("error");
  });
});

describe("GetContract and GetCustomer on the plain HTTP paths", () => {
  it("answer the whole body, wrapped in contract and customer", async () => {
    const email = freshEmail("pins");
    const { customerId, contractId } = await seedActiveCustomer(server, { email });
    const contract = await api(server, `/v1/contract/${contractId}`);
    expect(contract.status).toBe(200);
    expect(await contract.json()).toEqual({
      contract: {
        tokenId: contractId,
        status: "CONTRACT_STATUS_ACTIVATED",
        merchantName: "Test Shop",
        metadata: {},
        customerId,
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: expect.stringMatching(/Z$/),
      },
    });
    const customer = await api(server, `/v1/customer/${customerId}`);
    expect(customer.status).toBe(200);
    expect(await customer.json()).toEqual({
      customer: expect.objectContaining({
        id: customerId,
        email,
        linkInitialized: true,
        activated: true,
        status: { payment: "PAYMENT_AUTHORIZATION_STATUS_AUTHORIZED", kyc: "KYC_STATUS_NOT_SUBMITTED" },
      }),
    });
    // Another merchant's answers as a missing one.
    const other = await server.newMerchant();
    const hidden = await api(server, `/v1/customer/${customerId}`, { apiKey: other.api_key });
    expect(hidden.status).toBe(404);
  });
});

describe("field rules", () => {
  const onSession = (buyer: object, charge: object = {}) => ({
    buyer: { email: freshEmail(), ...buyer },
    charge: { price: 100, ...charge },
    redirect: { successUrl: redirect.successUrl, failureUrl: redirect.failureUrl },
  });

  async function refusedField(path: string, json: unknown): Promise<string | undefined> {
    const { status, body } = await post(path, json);
    expect(status, JSON.stringify(body)).toBe(400);
    return infoOf(body)?.metadata.field;
  }

  it("buyer.gender: male, female or empty", async () => {
    for (const gender of ["male", "female", ""]) {
      expect((await post("/v1/payments/on-session", onSession({ gender }))).status, gender).toBe(200);
    }
    for (const gender of ["other", "Male", "m"]) {
      expect(await refusedField("/v1/payments/on-session", onSession({ gender }))).toBe("buyer.gender");
    }
  });

  it("buyer.birth_date: YYYY-MM-DD or empty", async () => {
    for (const birthDate of ["1990-01-31", ""]) {
      expect((await post("/v1/payments/on-session", onSession({ birthDate }))).status, birthDate).toBe(200);
    }
    for (const birthDate of ["1990/01/31", "1990-13-01", "1990-01-32", "90-01-01", "1990-1-1"]) {
      expect(await refusedField("/v1/payments/on-session", onSession({ birthDate }))).toBe("buyer.birth_date");
    }
  });

  it("every length limit: description, idempotency key, refund reason (255), metadata key (40) and value (500)", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const offSession = (charge: object, extra: object = {}) => ({
      customer_id: customerId,
      charge: { price: 100, ...charge },
      ...extra,
    });
    const path = "/v1/payments/off-session/async";
    expect((await post(path, offSession({ description: "d".repeat(255) }))).status).toBe(200);
    expect(await refusedField(path, offSession({ description: "d".repeat(256) }))).toBe("charge.description");
    expect((await post(path, offSession({}, { idempotency_key: "k".repeat(255) }))).status).toBe(200);
    expect(await refusedField(path, offSession({}, { idempotency_key: "k".repeat(256) }))).toBe("idempotency_key");
    expect((await post(path, offSession({ metadata: { ["k".repeat(40)]: "v".repeat(500) } }))).status).toBe(200);
    expect(await refusedField(path, offSession({ metadata: { ["k".repeat(41)]: "v" } }))).toMatch(/^charge\.metadata/);
    expect(await refusedField(path, offSession({ metadata: { k: "v".repeat(501) } }))).toBe('charge.metadata["k"]');

    // On-session: description too.
    const onSessionPath = "/v1/payments/on-session";
    expect(await refusedField(onSessionPath, onSession({}, { description: "d".repeat(256) }))).toBe(
      "charge.description",
    );

    // Refund reason: a charge to refund first.
    const { body } = await post("/v1/payments/off-session", offSession({ price: 1000 }));
    const chargeId = body.charge.chargeId;
    expect(await refusedField("/v1/refund", { charge_id: chargeId, amount: 1, reason: "r".repeat(256) })).toBe(
      "reason",
    );
    expect((await post("/v1/refund", { charge_id: chargeId, amount: 1, reason: "r".repeat(255) })).status).toBe(200);
  });
});

describe("protocol refusals", () => {
  it("a plain HTTP path with the wrong verb answers 405 with Allow", async () => {
    const res = await api(server, "/v1/refund");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    const charge = await api(server, "/v1/charge/trx-x", { method: "POST", json: {} });
    expect(charge.status).toBe(405);
    expect(charge.headers.get("allow")).toBe("GET");
  });

  it("an unknown RPC answers 404 not_found naming it", async () => {
    const res = await api(server, "/payments.v1.PaymentService/NoSuchMethod", { method: "POST", json: {} });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      code: "not_found",
      message: "no route for POST /payments.v1.PaymentService/NoSuchMethod",
    });
  });
});
