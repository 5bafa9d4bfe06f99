import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectError } from "@connectrpc/connect";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import type { BankGateway } from "../../src/ports/bank-gateway.js";
import { ledgerOf } from "../../src/storage/bank-accounts.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { api, dialects, startTestServer, type TestServer } from "../helpers/test-server.js";
import { expectReconciled } from "../helpers/reconcile.js";

const asyncPath = "/v1/payments/off-session/async";
const syncPath = "/v1/payments/off-session";
const hours = (n: number) => n * 3_600_000;

async function post(server: TestServer, path: string, json: object, key?: string, apiKey?: string) {
  const res = await api(server, path, { method: "POST", json, headers: key ? { "idempotency-key": key } : {}, apiKey });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function chargesOf(server: TestServer, customerId: string) {
  return server.ctx.tx.db
    .selectFrom("charges")
    .select(["id", "status"])
    .where("customer_id", "=", customerId)
    .execute();
}

const body = (customerId: string, price = 1500) => ({
  customer_id: customerId,
  charge: { price, description: "subscription" },
});

for (const dialect of dialects) {
  describe(`50 concurrent requests with one key on ${dialect}`, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ dialect });
    });
    afterAll(async () => server?.stop());

    for (const [name, path] of [
      ["CreateOffSessionPaymentAsync", asyncPath],
      ["CreateOffSessionPayment", syncPath],
    ] as const) {
      it(`${name}: exactly one charge and one bank debit; the others replay it or are told it is in flight`, async () => {
        const { customerId } = await seedActiveCustomer(server, { balance: 1_000_000 });
        const key = `concurrent-${name}`;
        const responses = await Promise.all(
          Array.from({ length: 50 }, () => post(server, path, body(customerId), key)),
        );
        await server.jobs.drain();

        const answered = responses.filter((r) => r.status === 200);
        const inFlight = responses.filter((r) => r.status === 409);
        expect(answered.length + inFlight.length).toBe(50);
        expect(answered.length).toBeGreaterThanOrEqual(1);
        for (const refused of inFlight) expect(refused.body.code).toBe("aborted");
        expect(new Set(answered.map((r) => JSON.stringify(r.body))).size).toBe(1);

        const charges = await chargesOf(server, customerId);
        expect(charges).toHaveLength(1);
        expect(await ledgerOf(server.ctx.tx.db, customerId)).toEqual([
          expect.objectContaining({ reference: charges[0].id, amount: -1500 }),
        ]);

        const again = await post(server, path, body(customerId), key);
        expect(again.status).toBe(200);
        expect(again.headers.get("idempotent-replayed")).toBe("true");
        expect(again.body).toEqual(answered[0].body);
        await expectReconciled(server);
      });
    }
  });
}

describe("idempotency keys", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  /** Holds the account's first bank call until released; later calls go straight through. */
  function holdFirstBankCall(accountId: string) {
    const bank = server.ctx.bank as BankGateway;
    const debit = bank.debit.bind(bank);
    let entered!: () => void;
    let release!: () => void;
    const arrived = new Promise<void>((resolve) => (entered = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    bank.debit = async (request) => {
      // Only this account's: an earlier test's async charge may still be on its way to the bank.
      if (!held && request.accountId === accountId) {
        held = true;
        entered();
        await gate;
      }
      return debit(request);
    };
    return {
      arrived,
      release() {
        Reflect.deleteProperty(bank, "debit");
        release();
      },
    };
  }

  it("replays the first response for the same key and body, with no second charge", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const first = await post(server, asyncPath, body(customerId), "replay-1");
    const second = await post(server, asyncPath, body(customerId), "replay-1");
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
    expect(await chargesOf(server, customerId)).toHaveLength(1);
  });

  it("treats the key in the header, in the body field and in an RPC header as one key", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const viaHeader = await post(server, asyncPath, body(customerId), "one-key");
    const viaField = await post(server, asyncPath, { ...body(customerId), idempotency_key: "one-key" });
    const viaRpc = await server
      .client(PaymentService)
      .createOffSessionPaymentAsync(
        { customerId, charge: { price: 1500, description: "subscription" } },
        { headers: { "idempotency-key": "one-key" } },
      );
    expect(viaField.body).toEqual(viaHeader.body);
    expect(viaRpc.requestId).toBe(viaHeader.body.requestId);
    expect(viaRpc.chargeId).toBe(viaHeader.body.chargeId);
    for (const options of [{ binary: true }, { grpc: true }]) {
      const replayed = await server.client(PaymentService, undefined, options).createOffSessionPaymentAsync({
        customerId,
        charge: { price: 1500, description: "subscription" },
        idempotencyKey: "one-key",
      });
      expect(replayed.requestId).toBe(viaHeader.body.requestId);
    }
    expect(await chargesOf(server, customerId)).toHaveLength(1);
  });

  it("refuses the same key with a different body, or on another method, with 400", async () => {
    const { customerId } = await seedActiveCustomer(server);
    await post(server, asyncPath, body(customerId, 1500), "conflict-1");
    const otherBody = await post(server, asyncPath, body(customerId, 1600), "conflict-1");
    expect(otherBody.status).toBe(400);
    expect(otherBody.body.code).toBe("invalid_argument");
    expect(otherBody.body.message).toContain("conflict-1");
    const otherMethod = await post(server, syncPath, body(customerId, 1500), "conflict-1");
    expect(otherMethod.status).toBe(400);
    await server.jobs.drain();
    expect(await chargesOf(server, customerId)).toHaveLength(1);
    expect(await ledgerOf(server.ctx.tx.db, customerId)).toHaveLength(1);
  });

  it("replays an error too: the failed charge is not tried again under its key", async () => {
    const { customerId } = await seedActiveCustomer(server, { balance: 100 });
    const first = await post(server, syncPath, body(customerId), "error-1");
    expect(first.status).toBe(500);
    await server.ctx.tx.write((trx) =>
      trx.updateTable("bank_accounts").set({ balance: 1_000_000 }).where("customer_id", "=", customerId).execute(),
    );
    const second = await post(server, syncPath, body(customerId), "error-1");
    expect(second.status).toBe(500);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.headers.get("deprecation")).toBe("true");
    expect(second.body).toEqual(first.body);
    expect(second.body.details.find((d: { type: string }) => d.type === "google.rpc.ErrorInfo").debug.reason).toBe(
      "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS",
    );
    expect(await ledgerOf(server.ctx.tx.db, customerId)).toEqual([]);
    // A new key is a new charge.
    const fresh = await post(server, syncPath, body(customerId), "error-2");
    expect(fresh.status).toBe(200);
    expect(await chargesOf(server, customerId)).toHaveLength(2);
  });

  it("stores nothing for a request rejected by validation, so it can be fixed and retried", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const rejected = await post(server, asyncPath, body(customerId, 0), "fix-me");
    expect(rejected.status).toBe(400);
    expect((await api(server, "/v1/idempotency-keys/fix-me")).status).toBe(404);
    const fixed = await post(server, asyncPath, body(customerId, 1500), "fix-me");
    expect(fixed.status).toBe(200);
    expect(fixed.body.status).toBe("ASYNC_STATUS_PENDING");
  });

  it("answers 409 to a duplicate while the first request is in flight, then the first response", async () => {
    const { customerId, accountId } = await seedActiveCustomer(server);
    const hold = holdFirstBankCall(accountId);
    const first = post(server, syncPath, body(customerId), "in-flight-1");
    await hold.arrived;
    const duplicate = await post(server, syncPath, body(customerId), "in-flight-1");
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.code).toBe("aborted");
    const record = await server.client(PaymentService).getIdempotencyRecord({ idempotencyKey: "in-flight-1" });
    expect(record).toMatchObject({ inFlight: true, httpStatus: 0, responseJson: "" });

    hold.release();
    const answered = await first;
    expect(answered.status).toBe(200);
    const later = await post(server, syncPath, body(customerId), "in-flight-1");
    expect(later.status).toBe(200);
    expect(later.body.charge.chargeId).toBe(answered.body.charge.chargeId);
    expect(await ledgerOf(server.ctx.tx.db, customerId)).toHaveLength(1);
  });

  it("lets a retry take over a key whose first request stopped renewing it, resuming the same charge", async () => {
    const { customerId, accountId } = await seedActiveCustomer(server);
    const hold = holdFirstBankCall(accountId);
    const stuck = post(server, syncPath, body(customerId), "abandoned-1");
    await hold.arrived;
    // The first request's claim is not renewed on the manual clock: after 60 s it counts as abandoned.
    server.clock.advance(61_000);
    const retry = await post(server, syncPath, body(customerId), "abandoned-1");
    expect(retry.status).toBe(200);
    expect(retry.body.charge.chargeStatus).toBe("CHARGE_STATUS_SUCCESS");
    const charges = await chargesOf(server, customerId);
    expect(charges).toEqual([expect.objectContaining({ id: retry.body.charge.chargeId })]);

    hold.release();
    const late = await stuck;
    expect(late.body.charge.chargeId).toBe(retry.body.charge.chargeId);
    expect(await ledgerOf(server.ctx.tx.db, customerId)).toHaveLength(1);
    expect((await post(server, syncPath, body(customerId), "abandoned-1")).body).toEqual(retry.body);
  });

  it("frees the key after an unexpected failure; the retry resumes the charge instead of making another", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const bank = server.ctx.bank as BankGateway;
    bank.debit = async () => {
      throw new Error("connection reset by the bank");
    };
    try {
      const failed = await post(server, syncPath, body(customerId), "unexpected-1");
      expect(failed.status).toBe(500);
      expect(failed.body.message).toMatch(/internal error/);
    } finally {
      Reflect.deleteProperty(bank, "debit");
    }
    const retry = await post(server, syncPath, body(customerId), "unexpected-1");
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const charges = await chargesOf(server, customerId);
    expect(charges).toEqual([expect.objectContaining({ id: retry.body.charge.chargeId })]);
    expect(await ledgerOf(server.ctx.tx.db, customerId)).toHaveLength(1);
  });

  it("keeps a key 72 hours", async () => {
    const { customerId } = await seedActiveCustomer(server);
    await post(server, asyncPath, body(customerId, 1500), "expiry-1");
    server.clock.advance(hours(72) - 60_000);
    expect((await post(server, asyncPath, body(customerId, 1600), "expiry-1")).status).toBe(400);
    expect((await api(server, "/v1/idempotency-keys/expiry-1")).status).toBe(200);
    server.clock.advance(60_000);
    expect((await api(server, "/v1/idempotency-keys/expiry-1")).status).toBe(404);
    const reused = await post(server, asyncPath, body(customerId, 1600), "expiry-1");
    expect(reused.status).toBe(200);
    expect(reused.headers.get("idempotent-replayed")).toBeNull();
    expect(await chargesOf(server, customerId)).toHaveLength(2);
  });

  it("GetIdempotencyRecord tells a merchant what became of a request, and only its own", async () => {
    const { customerId } = await seedActiveCustomer(server, { balance: 100 });
    const ok = await post(server, asyncPath, body(customerId, 50), "lookup-ok");
    const failed = await post(server, syncPath, body(customerId, 5000), "lookup-failed");

    const res = await api(server, "/v1/idempotency-keys/lookup-ok");
    expect(res.status).toBe(200);
    const record = await res.json();
    expect(record).toMatchObject({
      idempotencyKey: "lookup-ok",
      method: "payments.v1.PaymentService/CreateOffSessionPaymentAsync",
      inFlight: false,
      httpStatus: 200,
    });
    expect(JSON.parse(record.responseJson)).toEqual(ok.body);
    expect(Date.parse(record.expiresAt) - Date.parse(record.createdAt)).toBe(hours(72));

    const { httpStatus, responseJson } = await server
      .client(PaymentService)
      .getIdempotencyRecord({ idempotencyKey: "lookup-failed" });
    expect(httpStatus).toBe(500);
    const error = JSON.parse(responseJson);
    expect(error).toMatchObject({ code: "internal", message: failed.body.message });
    expect(error.details.find((d: { type: string }) => d.type === "google.rpc.ErrorInfo").debug.reason).toBe(
      "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS",
    );

    // Keys are per merchant: another merchant neither sees this one nor collides with it.
    const other = await server.newMerchant();
    expect((await api(server, "/v1/idempotency-keys/lookup-ok", { apiKey: other.api_key })).status).toBe(404);
    const { customerId: theirs } = await seedActiveCustomer(server, { merchantId: other.merchant_id });
    const theirCall = await post(server, asyncPath, body(theirs, 50), "lookup-ok", other.api_key);
    expect(theirCall.status).toBe(200);
    expect(theirCall.body.chargeId).not.toBe(ok.body.chargeId);

    const missing = await server
      .client(PaymentService)
      .getIdempotencyRecord({ idempotencyKey: "never-used" })
      .then(
        () => undefined,
        (e) => ConnectError.from(e),
      );
    expect(missing?.rawMessage).toBe("idempotency key never-used not found");
  });

  it("does not deduplicate requests sent without a key", async () => {
    const { customerId } = await seedActiveCustomer(server);
    await post(server, asyncPath, body(customerId));
    await post(server, asyncPath, body(customerId));
    expect(await chargesOf(server, customerId)).toHaveLength(2);
  });
});
