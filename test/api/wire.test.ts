import { connect as http2Connect } from "node:http2";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { findTrailerError } from "@connectrpc/connect/protocol-grpc";
import { trailerParse } from "@connectrpc/connect/protocol-grpc-web";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { AsyncStatus, KycStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { freshEmail, redirect } from "../helpers/on-session.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;
let customerId: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ customerId } = await seedActiveCustomer(server));
});
afterAll(async () => server?.stop());

const asyncPath = "/v1/payments/off-session/async";
const asyncRpc = "/payments.v1.PaymentService/CreateOffSessionPaymentAsync";

interface Answer {
  status: number;
  body: {
    code: string;
    message: string;
    details?: { type: string; debug: { reason: string; metadata: Record<string, string> } }[];
  } & Record<string, unknown>;
}

async function post(
  path: string,
  body: string | Buffer | Uint8Array,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await api(server, path, {
    method: "POST",
    body: body as BodyInit,
    headers: { "content-type": "application/json", ...headers },
  });
  return { status: res.status, body: await res.json() };
}

function errorInfo(answer: Answer) {
  const info = answer.body.details?.find((d) => d.type === "google.rpc.ErrorInfo")?.debug;
  if (!info) throw new Error(`no ErrorInfo in ${JSON.stringify(answer.body)}`);
  return info;
}

async function chargeCount(): Promise<number> {
  const row = await server.ctx.tx.db
    .selectFrom("charges")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One gRPC call of CreateOffSessionPaymentAsync with the given body, over HTTP/2: the error its trailers carry. */
function grpcError(body: Uint8Array): Promise<ConnectError> {
  const session = http2Connect(server.url);
  const trailers = new Headers();
  const take = (headers: Record<string, unknown>) => {
    for (const [name, value] of Object.entries(headers)) if (!name.startsWith(":")) trailers.set(name, String(value));
  };
  return new Promise<ConnectError>((resolve, reject) => {
    const stream = session.request({
      ":method": "POST",
      ":path": asyncRpc,
      "content-type": "application/grpc",
      te: "trailers",
      authorization: `Bearer ${server.merchant.api_key}`,
    });
    stream.on("response", take);
    stream.on("trailers", take);
    stream.on("data", () => {});
    stream.on("error", reject);
    stream.on("end", () => {
      const error = findTrailerError(trailers);
      if (error) resolve(error);
      else reject(new Error("no error in the trailers"));
    });
    stream.end(body);
  }).finally(() => session.close());
}

/** The error in a unary gRPC-Web answer's trailer frame. */
async function grpcWebError(res: Response): Promise<ConnectError> {
  const bytes = Buffer.from(await res.arrayBuffer());
  for (let at = 0; at + 5 <= bytes.length; at += 5 + bytes.readUInt32BE(at + 1)) {
    if (!(bytes[at] & 0x80)) continue;
    const error = findTrailerError(trailerParse(bytes.subarray(at + 5, at + 5 + bytes.readUInt32BE(at + 1))));
    if (error) return error;
  }
  throw new Error(`no error trailer in ${bytes.toString("latin1")}`);
}

const offSession = (price: string) => `{"customer_id":"${customerId}","charge":{"price":${price},"description":"box"}}`;

describe("money amounts on the wire", () => {
  const refused = ['"0x10"', '"0b11"', '"0o17"', '"1e3"', '" 12"', '"12 "', '"12.5"', "12.5", '""', '"+12"', '"١٢"'];

  for (const path of [asyncPath, asyncRpc]) {
    it(`${path}: refuses ${refused.join(" ")} with VALIDATION_FAILED naming charge.price, and charges nothing`, async () => {
      const before = await chargeCount();
      for (const price of refused) {
        const answer = await post(path, offSession(price));
        expect(answer.status, price).toBe(400);
        expect(answer.body.code).toBe("invalid_argument");
        expect(answer.body.message).toContain("charge.price");
        expect(errorInfo(answer)).toMatchObject({
          reason: "ERROR_TYPE_PAYMENT_VALIDATION_FAILED",
          metadata: { field: "charge.price", genericCode: "INVALID_AMOUNT" },
        });
      }
      expect(await chargeCount()).toBe(before);
    });

    it(`${path}: takes a JSON number or a plain decimal string`, async () => {
      for (const price of ["16", '"16"', "1e3"]) {
        const answer = await post(path, offSession(price));
        expect(answer.status, price).toBe(200);
        const charge = await server.client(PaymentService).getCharge({ charge: String(answer.body.chargeId) });
        expect(charge.charge?.initialAmount).toBe(price === "1e3" ? 1000 : 16);
      }
    });
  }

  it("checks a gzip-compressed Connect body too", async () => {
    const answer = await post(asyncRpc, gzipSync(offSession('"0x10"')), { "content-encoding": "gzip" });
    expect(answer.status).toBe(400);
    expect(errorInfo(answer).metadata.field).toBe("charge.price");
  });

  it("refuses a refund amount in hex the same way (no method code of its own: VALIDATION_FAILED)", async () => {
    const answer = await post("/v1/refund", '{"charge_id":"trx-x","amount":"0x10"}');
    expect(answer.status).toBe(400);
    expect(errorInfo(answer)).toMatchObject({
      reason: "ERROR_TYPE_PAYMENT_VALIDATION_FAILED",
      metadata: { field: "amount", genericCode: "INVALID_AMOUNT" },
    });
  });
});

describe("every 400 carries an ErrorInfo with the method's code", () => {
  const cases: [string, string, string, string | undefined][] = [
    [asyncRpc, `{"customer_id":5}`, "ERROR_TYPE_PAYMENT_VALIDATION_FAILED", "customer_id"],
    [
      asyncPath,
      `{"customer_id":"${customerId}","charge":{"price":1,"nope":1}}`,
      "ERROR_TYPE_PAYMENT_VALIDATION_FAILED",
      undefined,
    ],
    [asyncRpc, `{"customer_id":`, "ERROR_TYPE_PAYMENT_VALIDATION_FAILED", undefined],
    [asyncPath, `{"customer_id":`, "ERROR_TYPE_PAYMENT_VALIDATION_FAILED", undefined],
    [
      "/v1/payments/on-session",
      `{"charge":{"price":12.5}}`,
      "ON_SESSION_PAYMENT_ERROR_CODE_VALIDATION_FAILED",
      "charge.price",
    ],
    [
      "/payments.v1.PaymentService/Refund",
      `{"charge_id":"trx-1","amount":true}`,
      "ERROR_TYPE_PAYMENT_VALIDATION_FAILED",
      "amount",
    ],
    ["/payments.v1.PaymentService/GetCharge", `{"charge":[]}`, "ERROR_TYPE_PAYMENT_VALIDATION_FAILED", "charge"],
  ];
  for (const [path, body, reason, field] of cases) {
    it(`${path} ${body}`, async () => {
      const answer = await post(path, body);
      expect(answer.status).toBe(400);
      const info = errorInfo(answer);
      expect(info.reason).toBe(reason);
      expect(info.metadata.genericCode).toBe(
        field === "charge.price" || field === "amount" ? "INVALID_AMOUNT" : "INVALID_REQUEST",
      );
      expect(info.metadata.field).toBe(field);
      if (field) expect(answer.body.message).toContain(field);
    });
  }

  it("refusals without a code of their own: a reused idempotency key, an unusable page token", async () => {
    const key = `wire-${Date.now()}`;
    expect((await post(asyncPath, offSession("100"), { "idempotency-key": key })).status).toBe(200);
    const conflict = await post(asyncPath, offSession("200"), { "idempotency-key": key });
    expect(conflict.status).toBe(400);
    expect(errorInfo(conflict)).toMatchObject({
      reason: "ERROR_TYPE_PAYMENT_VALIDATION_FAILED",
      metadata: { genericCode: "INVALID_REQUEST" },
    });
    const res = await api(server, "/v1/customers?page_token=garbage");
    const page = { status: res.status, body: await res.json() };
    expect(page.status).toBe(400);
    expect(errorInfo(page).reason).toBe("ERROR_TYPE_PAYMENT_VALIDATION_FAILED");
  });

  it("a Connect binary body that does not decode", async () => {
    const answer = await post(asyncRpc, new Uint8Array([0x0a, 0xff]), { "content-type": "application/proto" });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("invalid_argument");
    expect(errorInfo(answer).reason).toBe("ERROR_TYPE_PAYMENT_VALIDATION_FAILED");
  });

  // A frame whose message does not decode (field 1 claims 255 bytes), and bytes that are no frame at all.
  const garbage: [string, Uint8Array][] = [
    ["an undecodable message", new Uint8Array([0, 0, 0, 0, 2, 0x0a, 0xff])],
    ["bytes that are no message frame", Buffer.from("garbage")],
  ];
  for (const [label, body] of garbage) {
    it(`a gRPC body of ${label}`, async () => {
      const error = await grpcError(body);
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.rawMessage).toMatch(/^request body: /);
      expect(error.findDetails(ErrorInfoSchema)[0]).toMatchObject({
        reason: "ERROR_TYPE_PAYMENT_VALIDATION_FAILED",
        metadata: { genericCode: "INVALID_REQUEST" },
      });
    });

    it(`a gRPC-Web body of ${label}`, async () => {
      const res = await api(server, asyncRpc, {
        method: "POST",
        body: body as BodyInit,
        headers: { "content-type": "application/grpc-web+proto" },
      });
      const error = await grpcWebError(res);
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.findDetails(ErrorInfoSchema)[0]?.reason).toBe("ERROR_TYPE_PAYMENT_VALIDATION_FAILED");
    });
  }

  it("a body that is not JSON on the plain HTTP path", async () => {
    const answer = await post(asyncPath, "price=12", { "content-type": "application/x-www-form-urlencoded" });
    expect(answer.status).toBe(400);
    expect(errorInfo(answer).metadata.genericCode).toBe("INVALID_REQUEST");
  });
});

describe("NUL characters and invalid UTF-8 in string fields", () => {
  const onSession = (buyer: object, charge: object) =>
    JSON.stringify({ buyer: { email: freshEmail(), ...buyer }, charge: { price: 100, ...charge }, redirect });

  const cases: [string, string, string][] = [
    ["description", onSession({}, { description: "a\u0000b" }), "charge.description"],
    ["metadata value", onSession({}, { metadata: { order: "4\u00002" } }), 'charge.metadata["order"]'],
    ["metadata key", onSession({}, { metadata: { "or\u0000der": "42" } }), 'charge.metadata["or\\u0000der"]'],
    ["name", onSession({ name: "Taro\u0000" }, {}), "buyer.name"],
    ["e-mail", onSession({ email: "a\u0000@example.jp" }, {}), "buyer.email"],
    ["lone surrogate", onSession({}, { description: "\ud800x" }), "charge.description"],
  ];
  for (const [label, body, field] of cases) {
    it(`${label} → 400 naming ${field}`, async () => {
      const answer = await post("/v1/payments/on-session", body);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toContain(field);
      expect(errorInfo(answer)).toMatchObject({
        reason: "ON_SESSION_PAYMENT_ERROR_CODE_VALIDATION_FAILED",
        metadata: { field, genericCode: "INVALID_REQUEST" },
      });
    });
  }

  it("the message says why", async () => {
    const answer = await post("/v1/payments/on-session", onSession({}, { description: "a\u0000b" }));
    expect(answer.body.message).toBe("charge.description: must be UTF-8 text without NUL characters");
  });

  it("bytes that are not UTF-8 (stored as U+FFFD before)", async () => {
    const head = Buffer.from(`{"customer_id":"${customerId}","charge":{"price":100,"description":"caf`);
    const body = Buffer.concat([head, Buffer.from([0xe9]), Buffer.from(`"}}`)]);
    for (const path of [asyncPath, asyncRpc]) {
      const answer = await post(path, body);
      expect(answer.status).toBe(400);
      expect(errorInfo(answer).metadata.field).toBe("charge.description");
    }
  });

  it("over gRPC (binary) as well", async () => {
    const error = await server
      .client(PaymentService, undefined, { grpc: true })
      .createOffSessionPaymentAsync({ customerId, charge: { price: 100, description: "x\u0000" } })
      .then(() => undefined, ConnectError.from);
    expect(error?.rawMessage).toBe("charge.description: must be UTF-8 text without NUL characters");
    expect(error?.findDetails(ErrorInfoSchema)[0]?.metadata.field).toBe("charge.description");
  });
});

describe("generic codes", () => {
  it("INVALID_AMOUNT for a price outside 1..10,000,000; INVALID_REQUEST for other invalid input", async () => {
    for (const price of ["0", "10000001", "-5"]) {
      const answer = await post(asyncPath, offSession(price));
      expect(answer.status).toBe(400);
      expect(errorInfo(answer).metadata.genericCode).toBe("INVALID_AMOUNT");
    }
    const missing = await post("/v1/payments/on-session", JSON.stringify({ buyer: { email: freshEmail() } }));
    expect(errorInfo(missing)).toMatchObject({
      reason: "ON_SESSION_PAYMENT_ERROR_CODE_MISSING_REDIRECT_URLS",
      metadata: { genericCode: "INVALID_REQUEST" },
    });
  });

  it("PAYMENT_EXPIRED for a link-expired error", async () => {
    const answer = await post(
      asyncPath,
      JSON.stringify({
        customer_id: customerId,
        charge: { price: 100, metadata: { triggerError: "ERROR_TYPE_PAYMENT_LINK_EXPIRED" } },
      }),
    );
    expect(errorInfo(answer)).toMatchObject({
      reason: "ERROR_TYPE_PAYMENT_LINK_EXPIRED",
      metadata: { genericCode: "PAYMENT_EXPIRED" },
    });
  });

  it("KYC_REQUIRED on the synchronous refusal and on the async FAILED_TO_START charge error", async () => {
    const { customerId: unverified } = await seedActiveCustomer(server, { kyc: KycStatus.NOT_SUBMITTED });
    const body = JSON.stringify({ customer_id: unverified, charge: { price: 100 }, force_kyc: true });
    const sync = await post("/v1/payments/off-session", body);
    expect(errorInfo(sync)).toMatchObject({
      reason: "ERROR_TYPE_PAYMENT_CHARGE_REJECTED",
      metadata: { genericCode: "KYC_REQUIRED" },
    });
    const started = await post(asyncPath, body);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({
      status: "ASYNC_STATUS_FAILED_TO_START",
      error: { code: "ERROR_TYPE_PAYMENT_CHARGE_REJECTED", genericCode: "KYC_REQUIRED" },
    });
    const { charge } = await server.client(PaymentService).getCharge({ charge: String(started.body.chargeId) });
    expect(charge?.error?.genericCode).toBe("KYC_REQUIRED");
    const { request } = await server
      .client(PaymentService)
      .getAsyncPaymentRequest({ requestId: String(started.body.requestId) });
    expect(request?.status).toBe(AsyncStatus.FAILED_TO_START);
    expect(request?.error?.genericCode).toBe("KYC_REQUIRED");
  });
});
