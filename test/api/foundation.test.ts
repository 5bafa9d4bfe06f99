import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { ApiSource } from "../../gen/payments/v1/enums_pb.js";
import { PaymentErrorSchema } from "../../gen/payments/v1/errors_pb.js";
import { seedCharge } from "../helpers/charges.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.stop());

describe("GetCharge over every protocol", () => {
  // A row written straight to the database: the read paths are what is under test here.
  beforeAll(async () => {
    await seedCharge(server, {
      id: "trx-foundation1",
      merchantId: server.merchant.merchant_id,
      apiSource: ApiSource.OFF_SESSION_ASYNC,
      description: "coffee",
    });
  });

  it("answers over Connect JSON", async () => {
    const { charge } = await server.client(PaymentService).getCharge({ charge: "trx-foundation1" });
    expect(charge?.chargeId).toBe("trx-foundation1");
    expect(charge?.finalAmount).toBe(1200);
    expect(charge?.error).toBeUndefined();
  });

  it("answers over Connect binary", async () => {
    const { charge } = await server
      .client(PaymentService, undefined, { binary: true })
      .getCharge({ charge: "trx-foundation1" });
    expect(charge?.description).toBe("coffee");
  });

  it("answers over gRPC (HTTP/2 prior knowledge on the same port)", async () => {
    const { charge } = await server
      .client(PaymentService, undefined, { grpc: true })
      .getCharge({ charge: "trx-foundation1" });
    expect(charge?.currency).toBe("JPY");
  });

  it("answers over gRPC-Web, binary and JSON", async () => {
    for (const binary of [true, false]) {
      const { charge } = await server
        .client(PaymentService, undefined, { grpcWeb: true, binary })
        .getCharge({ charge: "trx-foundation1" });
      expect(charge?.chargeId).toBe("trx-foundation1");
    }
    const error = await server
      .client(PaymentService, undefined, { grpcWeb: true })
      .getCharge({ charge: "trx-none" })
      .then(() => undefined, ConnectError.from);
    expect(error?.code).toBe(Code.NotFound);
  });

  it("answers on the plain HTTP path with the contract's camelCase fields", async () => {
    const res = await api(server, "/v1/charge/trx-foundation1");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.charge).toMatchObject({
      chargeId: "trx-foundation1",
      chargeStatus: "CHARGE_STATUS_SUCCESS",
      initialAmount: 1200,
      finalAmount: 1200,
      currency: "JPY",
    });
    expect(body.charge.createdAt).toMatch(/Z$/);
    expect(body.charge).not.toHaveProperty("error");
  });
});

describe("authentication and tenancy", () => {
  it("refuses a call without a key with 401", async () => {
    const res = await api(server, "/v1/charge/trx-foundation1", { apiKey: "" });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe("unauthenticated");
  });

  it("refuses a wrong key and a key of the other mode", async () => {
    for (const key of ["sk_test_nope", server.merchant.api_key.replace("sk_test_", "sk_live_")]) {
      const res = await api(server, "/v1/charge/trx-foundation1", { apiKey: key });
      expect(res.status).toBe(401);
    }
  });

  it("answers an id of the wrong prefix not_found, with a hint to use the charge's trx-… id", async () => {
    const res = await api(server, "/v1/charge/chg-foundation1");
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.code).toBe("not_found");
    expect(body.message).toContain("trx-");
    const missing = await (await api(server, "/v1/charge/trx-missing")).json();
    expect(missing.message).toBe("charge trx-missing not found");
  });

  it("answers another merchant's charge exactly like a missing one", async () => {
    const other = await server.newMerchant();
    const foreign = await api(server, "/v1/charge/trx-foundation1", { apiKey: other.api_key });
    const missing = await api(server, "/v1/charge/trx-missing", { apiKey: other.api_key });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect((await foreign.json()).code).toBe((await missing.json()).code);
  });
});

describe("errors", () => {
  it("puts the catalogued code in details, readable by findDetails and in raw details[].debug", async () => {
    const client = server.client(PaymentService);
    const error = await client.createOffSessionPaymentAsync({ customerId: "cus-x", charge: { price: 0 } }).then(
      () => undefined,
      (e) => ConnectError.from(e),
    );
    expect(error?.code).toBe(Code.InvalidArgument);
    const [info] = error!.findDetails(ErrorInfoSchema);
    expect(info.reason).toBe("ERROR_TYPE_PAYMENT_VALIDATION_FAILED");
    expect(info.metadata.paymentErrorCode).toBe("PAYMENT_ERROR_CODE_BAD_REQUEST");
    const [detail] = error!.findDetails(PaymentErrorSchema);
    expect(detail.field).toBe("charge.price");

    const res = await api(server, "/v1/payments/off-session/async", {
      method: "POST",
      json: { customer_id: "cus-x", charge: { price: 0 } },
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe("invalid_argument");
    expect(body.message).toContain("charge.price");
    const debug = body.details.find((d: { type: string }) => d.type === "google.rpc.ErrorInfo").debug;
    expect(debug.reason).toBe("ERROR_TYPE_PAYMENT_VALIDATION_FAILED");
  });

  it("answers malformed JSON and wrong content types with a clean 4xx", async () => {
    const bad = await api(server, "/v1/refund", {
      method: "POST",
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).code).toBe("invalid_argument");
    const xml = await api(server, "/v1/refund", {
      method: "POST",
      body: "<a/>",
      headers: { "content-type": "application/xml" },
    });
    expect(xml.status).toBeGreaterThanOrEqual(400);
    expect(xml.status).toBeLessThan(500);
    const rpc = await fetch(`${server.url}/payments.v1.PaymentService/GetCharge`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${server.merchant.api_key}` },
      body: "{oops",
    });
    expect(rpc.status).toBe(400);
    const text = await fetch(`${server.url}/payments.v1.PaymentService/GetCharge`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x",
    });
    expect(text.status).toBe(415);
  });

  it("names the field of a validation error on the plain path", async () => {
    const res = await api(server, "/v1/customers?page_size=1000");
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain("page_size");
  });
});

describe("operability", () => {
  it("serves /healthz", async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("echoes a request id", async () => {
    const res = await api(server, "/v1/charge/trx-foundation1", { headers: { "x-request-id": "req-123" } });
    expect(res.headers.get("x-request-id")).toBe("req-123");
  });
});
