import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { freshEmail, redirect } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

const clockStart = new Date("2026-03-10T01:00:00Z");

async function refused(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("the call was not refused");
}

async function keyRecord(server: TestServer, key: string) {
  return server.ctx.tx.db
    .selectFrom("idempotency_keys")
    .selectAll()
    .where("merchant_id", "=", server.merchant.merchant_id)
    .where("idempotency_key", "=", key)
    .executeTakeFirst();
}

/**
 * Issue 17, "Idempotency of refusals": a refusal decided before anything was written stores
 * nothing for the key, whatever layer raised it, so the corrected request with the same key runs.
 */
describe("a refusal decided before any side effect stores nothing for its key", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clockStart, env: { WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  it("an invalid triggerError (off-session async and Withdraw)", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const payments = server.client(PaymentService);
    const bad = await refused(
      payments.createOffSessionPaymentAsync({
        customerId,
        charge: { price: 500, metadata: { triggerError: "NOT_AN_ERROR" } },
        idempotencyKey: "refusal-trigger",
      }),
    );
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(await keyRecord(server, "refusal-trigger")).toBeUndefined();
    const fixed = await payments.createOffSessionPaymentAsync({
      customerId,
      charge: { price: 500 },
      idempotencyKey: "refusal-trigger",
    });
    expect(fixed.chargeId).toMatch(/^trx-/);

    const sandbox = server.client(SandboxService);
    await refused(
      sandbox.withdraw({
        merchantCustomerId: customerId,
        charge: { price: 500, metadata: { triggerError: "NOT_AN_ERROR" } },
        idempotencyKey: "refusal-withdraw",
      }),
    );
    const withdrawn = await sandbox.withdraw({
      merchantCustomerId: customerId,
      charge: { price: 500 },
      idempotencyKey: "refusal-withdraw",
    });
    expect(withdrawn.charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
  });

  it("MISSING_CHARGE, CUSTOMER_NOT_FOUND and CUSTOMER_INACTIVE (on-session)", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const payments = server.client(PaymentService);
    const missing = await refused(
      payments.createOnSessionPayment({ buyer: { customerId }, redirect, idempotencyKey: "refusal-missing" }),
    );
    expect(missing.rawMessage).toMatch(/charge.price is required/);
    const fixed = await payments.createOnSessionPayment({
      buyer: { customerId },
      charge: { price: 800 },
      redirect,
      idempotencyKey: "refusal-missing",
    });
    expect(fixed.charge?.chargeId).toMatch(/^trx-/);

    await refused(
      payments.createOnSessionPayment({
        buyer: { customerId: "cus-unknown" },
        charge: { price: 800 },
        redirect,
        idempotencyKey: "refusal-unknown",
      }),
    );
    const found = await payments.createOnSessionPayment({
      buyer: { customerId },
      charge: { price: 800 },
      redirect,
      idempotencyKey: "refusal-unknown",
    });
    expect(found.charge?.customer?.id).toBe(customerId);

    const email = freshEmail("inactive");
    const contractOnly = await payments.createOnSessionPayment({ buyer: { email }, redirect });
    const inactiveId = contractOnly.charge!.customer!.id!;
    const inactive = await refused(
      payments.createOnSessionPayment({
        buyer: { customerId: inactiveId },
        charge: { price: 800 },
        redirect,
        idempotencyKey: "refusal-inactive",
      }),
    );
    expect(inactive.rawMessage).toBe("Customer is not active. Issue a new payment link for them to complete.");
    const byEmail = await payments.createOnSessionPayment({
      buyer: { email },
      charge: { price: 800 },
      redirect,
      idempotencyKey: "refusal-inactive",
    });
    expect(byEmail.paymentLink?.url).toMatch(/\/pay\//);
  });

  it("refund refusals (not refundable, not owned); the corrected refund runs under the same key", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const payments = server.client(PaymentService);
    const paid = (await payments.createOffSessionPayment({ customerId, charge: { price: 1_000 } })).charge!;
    const exceeds = await refused(
      payments.refund({ chargeId: paid.chargeId, amount: 5_000, idempotencyKey: "refusal-refund" }),
    );
    expect(exceeds.rawMessage).toBe("refund amount exceeds refundable amount");
    const notOwned = await refused(
      payments.refund({ chargeId: "trx-not-mine", amount: 100, idempotencyKey: "refusal-refund" }),
    );
    expect(notOwned.rawMessage).toBe("transaction does not belong to the merchant");
    const { refund } = await payments.refund({
      chargeId: paid.chargeId,
      amount: 500,
      idempotencyKey: "refusal-refund",
    });
    expect(refund?.amount).toBe(500);
  });

  it("a refusal written as a failed charge is the key's answer: the same key replays it", async () => {
    const payments = server.client(PaymentService);
    const request = { customerId: "cus-nobody", charge: { price: 500 }, idempotencyKey: "refusal-written" };
    const first = await refused(payments.createOffSessionPayment(request));
    const again = await refused(payments.createOffSessionPayment(request));
    expect(again.rawMessage).toBe(first.rawMessage);
    expect(again.metadata.get("idempotent-replayed")).toBe("true");
    expect((await keyRecord(server, "refusal-written"))?.resource_id).toMatch(/^trx-/);
  });
});

describe("a redirect URL refused in production stores nothing for its key", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clockStart, env: { MODE: "production", WORKERS: "off" } });
  });
  afterAll(() => server?.stop());

  it("the corrected https request with the same key is created", async () => {
    const payments = server.client(PaymentService);
    const email = freshEmail("prod");
    const insecure = await refused(
      payments.createOnSessionPayment({
        buyer: { email },
        charge: { price: 800 },
        redirect: { successUrl: "http://shop.example.jp/ok", failureUrl: "http://shop.example.jp/ng" },
        idempotencyKey: "refusal-redirect",
      }),
    );
    expect(insecure.code).toBe(Code.InvalidArgument);
    const created = await payments.createOnSessionPayment({
      buyer: { email },
      charge: { price: 800 },
      redirect,
      idempotencyKey: "refusal-redirect",
    });
    expect(created.charge?.chargeId).toMatch(/^trx-/);
  });
});
