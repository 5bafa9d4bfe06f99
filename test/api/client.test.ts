import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { sql } from "kysely";
import {
  createFurikomiClient,
  FurikomiError,
  verifyWebhook,
  WebhookVerificationError,
  type FurikomiClientOptions,
  type RetryEvent,
} from "furikomi/client";
import { AsyncStatus, ChargeStatus, ContractStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { standardWebhookHeaders } from "../../src/domain/webhook-signature.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { freshEmail, redirect } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { receiveWebhooksOf, type ReceivedWebhook, type WebhookReceiver } from "../helpers/webhook-receiver.js";

let server: TestServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  // The receiver needs the secret, the secret comes with the merchant: start, then point the merchant at it.
  server = await startTestServer();
  receiver = await receiveWebhooksOf(server.ctx, server.merchant);
});

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

/** A client of the test merchant that records every attempt (method and idempotency key) and every retry. */
function recordingClient(options: Partial<FurikomiClientOptions> = {}) {
  const attempts: { method: string; idempotencyKey: string | undefined }[] = [];
  const retries: RetryEvent[] = [];
  const record: Interceptor = (next) => (req) => {
    attempts.push({
      method: req.method.name,
      idempotencyKey: (req.message as { idempotencyKey?: string }).idempotencyKey,
    });
    return next(req);
  };
  const client = createFurikomiClient({
    baseUrl: server.url,
    apiKey: server.merchant.api_key,
    initialBackoffMs: 5,
    maxBackoffMs: 20,
    interceptors: [record],
    ...options,
    onRetry: async (event) => {
      retries.push(event);
      await options.onRetry?.(event);
    },
  });
  return { client, attempts, retries };
}

function failureOf(promise: Promise<unknown>): Promise<FurikomiError> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(FurikomiError);
      return error as FurikomiError;
    },
  );
}

const charge = (price = 1200) => ({ price, description: "green tea", metadata: { order: "A-1042" } });

describe("typed errors", () => {
  it("terminal: insufficient funds carries its ErrorType, domain code and HTTP status, and is sent once", async () => {
    const { customerId } = await seedActiveCustomer(server, { balance: 100 });
    const { client, attempts, retries } = recordingClient();
    const error = await failureOf(client.payments.createOffSessionPayment({ customerId, charge: charge() }));
    expect(error).toMatchObject({
      errorType: "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS",
      paymentErrorCode: "PAYMENT_ERROR_CODE_INSUFFICIENT_FUNDS",
      httpStatus: 500,
      retryClass: "terminal",
      retryable: false,
      attempts: 1,
      rawMessage: "Customer has insufficient funds",
    });
    expect(attempts).toHaveLength(1);
    expect(retries).toEqual([]);
    expect(error.idempotencyKey).toBe(attempts[0].idempotencyKey);
  });

  it("terminal: a validation failure names the field (400)", async () => {
    const { client, attempts } = recordingClient();
    const error = await failureOf(
      client.payments.createOnSessionPayment({ buyer: { email: "not-an-email" }, charge: charge(), redirect }),
    );
    expect(error).toMatchObject({
      errorType: "ON_SESSION_PAYMENT_ERROR_CODE_VALIDATION_FAILED",
      paymentErrorCode: "PAYMENT_ERROR_CODE_BAD_REQUEST",
      field: "buyer.email",
      httpStatus: 400,
      retryable: false,
    });
    expect(attempts).toHaveLength(1);
  });

  it("conditional: STRATEGY_EXECUTION_FAILED is left to the caller, not retried", async () => {
    const merchant = await server.newMerchant("Suspended");
    await server.ctx.tx.db
      .updateTable("merchants")
      .set({ onboarding_state: "suspended" })
      .where("id", "=", merchant.merchant_id)
      .execute();
    const { client, attempts } = recordingClient({ apiKey: merchant.api_key });
    const error = await failureOf(
      client.payments.createOnSessionPayment({ buyer: { email: freshEmail() }, charge: charge(), redirect }),
    );
    expect(error).toMatchObject({
      errorType: "ON_SESSION_PAYMENT_ERROR_CODE_STRATEGY_EXECUTION_FAILED",
      retryClass: "conditional",
      retryable: false,
      attempts: 1,
    });
    expect(attempts).toHaveLength(1);
  });

  it("retryable: gateway unavailable is retried up to maxAttempts, each attempt under the next derived key, then surfaces (503)", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const { client, attempts, retries } = recordingClient({ maxAttempts: 3 });
    await client.sandbox.configureBankAccount({ customerId, underMaintenance: true });
    const error = await failureOf(client.payments.createOffSessionPayment({ customerId, charge: charge() }));
    expect(error).toMatchObject({
      errorType: "ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE",
      paymentErrorCode: "PAYMENT_ERROR_CODE_UNDER_MAINTENANCE",
      httpStatus: 503,
      retryClass: "retryable",
      retryable: true,
      attempts: 3,
    });
    const creates = attempts.filter((a) => a.method === "CreateOffSessionPayment");
    expect(creates).toHaveLength(3);
    // The server keeps the failure under its key; the retries carry key~r2, key~r3.
    const key = creates[0].idempotencyKey!;
    expect(creates.map((a) => a.idempotencyKey)).toEqual([key, `${key}~r2`, `${key}~r3`]);
    expect(error.idempotencyKey).toBe(`${key}~r3`);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    for (const retry of retries) expect(retry.delayMs).toBeLessThan(20);
  });

  it("retryable: an on-session internal error is retried, each attempt under the next derived key, running again rather than replaying the first", async () => {
    const broken = await startTestServer();
    try {
      // A storage failure the flow does not expect: the table of payment links is gone.
      await sql`drop table payment_links`.execute(broken.ctx.tx.db);
      const { client, attempts } = recordingClient({
        baseUrl: broken.url,
        apiKey: broken.merchant.api_key,
        maxAttempts: 3,
      });
      const error = await failureOf(
        client.payments.createOnSessionPayment({ buyer: { email: freshEmail() }, charge: charge(), redirect }),
      );
      expect(error).toMatchObject({
        errorType: "ON_SESSION_PAYMENT_ERROR_CODE_INTERNAL_ERROR",
        httpStatus: 500,
        retryable: true,
        attempts: 3,
      });
      expect(error.metadata.get("idempotent-replayed")).toBeNull();
      const key = attempts[0].idempotencyKey!;
      expect(attempts.map((a) => a.idempotencyKey)).toEqual([key, `${key}~r2`, `${key}~r3`]);
    } finally {
      await broken.stop();
    }
  });

  it("protocol failures without a catalogued code: not found (404) and a bad API key (401)", async () => {
    const { client } = recordingClient();
    expect(await failureOf(client.payments.getCharge({ charge: "trx-missing" }))).toMatchObject({
      errorType: undefined,
      httpStatus: 404,
      retryable: false,
    });
    const { client: stranger, attempts } = recordingClient({ apiKey: "sk_test_unknown" });
    expect(await failureOf(stranger.payments.getCharge({ charge: "trx-missing" }))).toMatchObject({
      errorType: undefined,
      httpStatus: 401,
      retryable: false,
    });
    expect(attempts).toHaveLength(1);
  });
});

describe("safe retries", () => {
  it("retries a network failure of a read, but sends a call that is neither a read nor keyed only once", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { client, attempts, retries } = recordingClient({ baseUrl: `http://127.0.0.1:${port}`, maxAttempts: 3 });

    const error = await failureOf(client.payments.getCharge({ charge: "trx-any" }));
    expect(error).toMatchObject({ errorType: undefined, httpStatus: 503, retryable: true, attempts: 3 });
    expect(retries).toHaveLength(2);

    // SetBankMaintenance is a POST without an idempotency key: a lost answer may have been applied.
    const unkeyed = await failureOf(client.sandbox.setBankMaintenance({ underMaintenance: true }));
    expect(unkeyed).toMatchObject({ retryable: true, attempts: 1 });
    expect(attempts.filter((a) => a.method === "SetBankMaintenance")).toHaveLength(1);
  });

  it("does not retry an async request refused for good: an inactive customer makes one charge and one webhook", async () => {
    const { customerId, contractId } = await seedActiveCustomer(server);
    await server.ctx.tx.write((trx) =>
      trx.updateTable("contracts").set({ status: ContractStatus.DEACTIVATED }).where("id", "=", contractId).execute(),
    );
    // Default settings: no retry options at all.
    const attempts: string[] = [];
    const client = createFurikomiClient({
      baseUrl: server.url,
      apiKey: server.merchant.api_key,
      interceptors: [(next) => (req) => (attempts.push(req.method.name), next(req))],
    });
    const answer = await client.payments.createOffSessionPaymentAsync({ customerId, charge: charge() });
    expect(answer.status).toBe(AsyncStatus.FAILED_TO_START);
    expect(answer.error?.code).toBe(ErrorType.PAYMENT_CUSTOMER_INACTIVE);
    expect(attempts).toEqual(["CreateOffSessionPaymentAsync"]);

    const charges = await server.ctx.tx.db
      .selectFrom("charges")
      .select("id")
      .where("customer_id", "=", customerId)
      .execute();
    expect(charges.map((c) => c.id)).toEqual([answer.chargeId]);
    await receiver.waitFor((r) => r.delivered.some((d) => d.content.id === answer.chargeId));
    const failures = await server.ctx.tx.db
      .selectFrom("events")
      .select("event_type_name")
      .where("charge_id", "in", [answer.chargeId])
      .execute();
    expect(failures.map((e) => e.event_type_name)).toEqual(["EVENT_TYPE_CHARGE_FAIL"]);
    expect(receiver.delivered.filter((d) => d.content.customer === customerId)).toHaveLength(1);
  });

  it("retries FAILED_TO_START only when the charge's error is retryable, under derived keys", async () => {
    const answers: [ErrorType, string][] = [
      [ErrorType.PAYMENT_GATEWAY_UNAVAILABLE, "Payment gateway currently unavailable"],
      [ErrorType.PAYMENT_CHARGE_FAILED, "the bank link is temporarily down"],
      [ErrorType.PAYMENT_CHARGE_FAILED, "Payment failed. Please contact support."],
      [ErrorType.PAYMENT_CHARGE_FAILED, "duplicate charge (not a temporary error)"],
      [ErrorType.PAYMENT_CHARGE_REJECTED, "Customer has not completed KYC"],
    ];
    for (const [code, message] of answers) {
      const keys: string[] = [];
      const fakeServer = createServer(
        connectNodeAdapter({
          routes: (router) =>
            router.service(PaymentService, {
              createOffSessionPaymentAsync(req) {
                keys.push(req.idempotencyKey);
                return {
                  requestId: "pwf-1",
                  chargeId: "trx-1",
                  status: AsyncStatus.FAILED_TO_START,
                  error: { code, message },
                };
              },
            }),
        }),
      );
      await new Promise<void>((resolve) => fakeServer.listen(0, "127.0.0.1", resolve));
      onTestFinished(() => void fakeServer.close());
      const retries: RetryEvent[] = [];
      const fake = createFurikomiClient({
        baseUrl: `http://127.0.0.1:${(fakeServer.address() as AddressInfo).port}`,
        apiKey: "sk_test_x",
        initialBackoffMs: 1,
        maxBackoffMs: 2,
        onRetry: (event) => void retries.push(event),
      });
      const answer = await fake.payments.createOffSessionPaymentAsync({ customerId: "cus-1", charge: charge() });
      expect(answer.status).toBe(AsyncStatus.FAILED_TO_START);
      const retried = code === ErrorType.PAYMENT_GATEWAY_UNAVAILABLE || message.includes("temporarily");
      expect(keys, message).toEqual(retried ? [keys[0], `${keys[0]}~r2`, `${keys[0]}~r3`, `${keys[0]}~r4`] : [keys[0]]);
      if (retried) expect(retries[0].error.errorType).toBe(`ERROR_TYPE_${ErrorType[code]}`);
    }
  });

  it("retries a maintenance failure and charges exactly once when the bank is back", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const { client: setup } = recordingClient();
    await setup.sandbox.configureBankAccount({ customerId, underMaintenance: true });
    const { client, attempts, retries } = recordingClient({
      maxAttempts: 4,
      // Between the first and second attempt the bank comes back.
      onRetry: async () => void (await setup.sandbox.configureBankAccount({ customerId, underMaintenance: false })),
    });

    const { charge: charged } = await client.payments.createOffSessionPayment({ customerId, charge: charge(3000) });
    expect(charged?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect(retries).toHaveLength(1);
    expect(retries[0].error.errorType).toBe("ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE");
    const creates = attempts.filter((a) => a.method === "CreateOffSessionPayment");
    expect(creates).toHaveLength(2);
    const key = creates[0].idempotencyKey!;
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/); // a fresh UUID
    expect(creates[1].idempotencyKey).toBe(`${key}~r2`);

    // One booking at the bank; the key keeps its failure (errors included), the derived key the success.
    const { account } = await setup.sandbox.getBankAccount({ customerId });
    expect(account?.ledger.map((row) => Number(row.amount))).toEqual([-3000]);
    expect((await setup.payments.getIdempotencyRecord({ idempotencyKey: key })).httpStatus).toBe(503);
    const record = await setup.payments.getIdempotencyRecord({ idempotencyKey: `${key}~r2` });
    expect(record.httpStatus).toBe(200);
    expect(JSON.parse(record.responseJson).charge.chargeId).toBe(charged?.chargeId);

    // The same logical call repeated with its key walks the same keys: answered from the success, no second booking.
    const again = await client.payments.createOffSessionPayment({
      customerId,
      charge: charge(3000),
      idempotencyKey: key,
    });
    expect(again.charge?.chargeId).toBe(charged?.chargeId);
    expect((await setup.sandbox.getBankAccount({ customerId })).account?.ledger).toHaveLength(1);
  });
});

describe("verifyWebhook", () => {
  let delivery: ReceivedWebhook;
  let chargeId: string;
  const secret = () => server.merchant.webhook_secret;

  beforeAll(async () => {
    const { customerId } = await seedActiveCustomer(server);
    const { client } = recordingClient();
    chargeId = (await client.payments.createOffSessionPayment({ customerId, charge: charge(2000) })).charge!.chargeId;
    await receiver.waitFor((r) => r.delivered.some((d) => d.content.id === chargeId));
    delivery = receiver.delivered.find((d) => d.content.id === chargeId)!;
  });

  it("accepts a real delivery and returns the event typed by its event_type", () => {
    const event = verifyWebhook(delivery.raw, delivery.headers, secret());
    expect(event.id).toBe(delivery.id);
    if (event.eventType !== "EVENT_TYPE_CHARGE_SUCCESS") throw new Error(`unexpected ${event.eventType}`);
    // Narrowed: content is a ChargeEventContent.
    expect(event.content).toMatchObject({
      id: chargeId,
      finalAmount: 2000,
      currency: "JPY",
      status: "CHARGE_STATUS_SUCCESS",
      apiSource: 1,
    });
  });

  it("refuses a tampered body", () => {
    const tampered = delivery.raw.replace('"final_amount":2000', '"final_amount":20');
    expect(tampered).not.toBe(delivery.raw);
    expect(() => verifyWebhook(tampered, delivery.headers, secret())).toThrow(WebhookVerificationError);
  });

  it("refuses a body whose envelope signature is wrong even when the Standard Webhooks headers are valid", () => {
    const forged = delivery.raw.replace('"final_amount":2000', '"final_amount":20');
    const headers = standardWebhookHeaders(secret(), delivery.id, forged, new Date());
    expect(() => verifyWebhook(forged, headers, secret())).toThrow(/envelope signature/);
  });

  it("refuses a stale delivery (webhook-timestamp more than 5 minutes old)", () => {
    const headers = standardWebhookHeaders(secret(), delivery.id, delivery.raw, new Date(Date.now() - 10 * 60_000));
    expect(() => verifyWebhook(delivery.raw, headers, secret())).toThrow(/too old/);
  });

  it("refuses another merchant's secret", async () => {
    const other = await server.newMerchant("Someone Else");
    expect(() => verifyWebhook(delivery.raw, delivery.headers, other.webhook_secret)).toThrow(WebhookVerificationError);
  });
});
