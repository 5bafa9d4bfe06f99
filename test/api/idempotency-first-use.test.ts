import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { ledgerOf } from "../../src/storage/bank-accounts.js";
import { findIdempotencyRecord, insertIdempotencyRecord } from "../../src/storage/idempotency-keys.js";
import {
  bindIdempotentResource,
  IdempotencyKeyTaken,
  renewIdempotentRequest,
  runIdempotent,
  settleFailedRequest,
  type IdempotencyScope,
} from "../../src/flows/idempotency.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { freshEmail, redirect } from "../helpers/on-session.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";
import { expectReconciled } from "../helpers/reconcile.js";

/**
 * A first use of a key is claimed in the transaction that writes what the request creates
 * (docs/architecture.md#durability): concurrent first uses race at that insert, a loser's whole
 * transaction rolls back, and it is then answered as a duplicate: the first response, or
 * `aborted` while the first is in flight (docs/reference/contract.md#idempotency).
 */
describe("the first use of an idempotency key, claimed in the flow's own transaction", () => {
  const duplicates = 20;
  let server: TestServer;
  let merchant: { merchant_id: string; api_key: string };
  beforeAll(async () => {
    server = await startTestServer();
    // A merchant of its own, so every row counted below is this file's.
    merchant = await server.newMerchant("first-use");
  });
  afterAll(async () => server?.stop());

  async function post(path: string, json: object, key: string) {
    const res = await api(server, path, {
      method: "POST",
      json,
      headers: { "idempotency-key": key },
      apiKey: merchant.api_key,
    });
    return { status: res.status, replayed: res.headers.get("idempotent-replayed"), body: await res.json() };
  }

  /** `duplicates` copies of one request at once: the answers, all the same 200 or `aborted` 409. */
  async function race(path: string, json: object, key: string) {
    const answers = await Promise.all(Array.from({ length: duplicates }, () => post(path, json, key)));
    const answered = answers.filter((a) => a.status === 200);
    const inFlight = answers.filter((a) => a.status === 409);
    expect(answered.length + inFlight.length).toBe(duplicates);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    for (const refused of inFlight) expect(refused.body.code).toBe("aborted");
    expect(new Set(answered.map((a) => JSON.stringify(a.body))).size).toBe(1);
    return answered[0].body;
  }

  const countOf = async (table: "charges" | "async_requests" | "refunds" | "payment_links" | "customers") =>
    Number(
      (
        await server.ctx.tx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .where("merchant_id", "=", merchant.merchant_id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** The key's record: answered, bound to what the request created, holding its response. */
  async function expectRecord(key: string, resourceId: string, body: unknown) {
    const record = await findIdempotencyRecord(server.ctx.tx.db, merchant.merchant_id, key);
    expect(record).toMatchObject({ state: "completed", httpStatus: 200, resourceId, leaseUntil: null });
    expect(JSON.parse(record!.responseJson)).toEqual(body);
  }

  it(`CreateOffSessionPaymentAsync, ${duplicates} at once: one charge, one request, one debit; then the same answer replayed`, async () => {
    const { customerId } = await seedActiveCustomer(server, { merchantId: merchant.merchant_id, balance: 1_000_000 });
    const charges = await countOf("charges");
    const requests = await countOf("async_requests");
    const json = { customer_id: customerId, charge: { price: 1500, description: "first use" } };
    const body = await race("/v1/payments/off-session/async", json, "first-use-async");
    expect(await countOf("charges")).toBe(charges + 1);
    expect(await countOf("async_requests")).toBe(requests + 1);
    await expectRecord("first-use-async", body.chargeId, body);

    const again = await post("/v1/payments/off-session/async", json, "first-use-async");
    expect(again).toEqual({ status: 200, replayed: "true", body });
    // The losers' jobs rolled back with their charges: the engine debits the bank once.
    await server.jobs.drain();
    expect(await ledgerOf(server.ctx.tx.db, customerId)).toEqual([
      expect.objectContaining({ reference: body.chargeId, amount: -1500 }),
    ]);
    const { charge } = await server.client(PaymentService, merchant.api_key).getCharge({ charge: body.chargeId });
    expect(charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    await expectReconciled(server);
  });

  it(`CreateOnSessionPayment for a new buyer, ${duplicates} at once: one customer, one link, one charge`, async () => {
    const customers = await countOf("customers");
    const links = await countOf("payment_links");
    const charges = await countOf("charges");
    const json = { buyer: { email: freshEmail("first-use") }, charge: { price: 1200, description: "beans" }, redirect };
    const body = await race("/v1/payments/on-session", json, "first-use-on-session");
    expect(await countOf("customers")).toBe(customers + 1);
    expect(await countOf("payment_links")).toBe(links + 1);
    expect(await countOf("charges")).toBe(charges + 1);
    const again = await post("/v1/payments/on-session", json, "first-use-on-session");
    expect(again).toEqual({ status: 200, replayed: "true", body });
  });

  it(`Refund, ${duplicates} at once: one refund of the charge`, async () => {
    const { customerId } = await seedActiveCustomer(server, { merchantId: merchant.merchant_id, balance: 1_000_000 });
    const { charge } = await server
      .client(PaymentService, merchant.api_key)
      .createOffSessionPayment({ customerId, charge: { price: 1000, description: "tea" } });
    expect(charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    const refunds = await countOf("refunds");
    const json = { chargeId: charge!.chargeId, amount: 300 };
    const body = await race("/v1/refund", json, "first-use-refund");
    expect(await countOf("refunds")).toBe(refunds + 1);
    await expectRecord("first-use-refund", body.refund.refundId, body);
    const again = await post("/v1/refund", json, "first-use-refund");
    expect(again).toEqual({ status: 200, replayed: "true", body });
  });

  it("a first use refused before it wrote anything leaves no record: the corrected request uses the key", async () => {
    const { customerId } = await seedActiveCustomer(server, { merchantId: merchant.merchant_id, balance: 1_000_000 });
    const json = { customer_id: customerId, charge: { price: 1500, description: "first use" } };
    const invalidTrigger = { ...json, charge: { ...json.charge, metadata: { triggerError: "NOT_AN_ERROR_TYPE" } } };
    const refused = await post("/v1/payments/off-session/async", invalidTrigger, "first-use-refused");
    expect(refused.status).toBe(400);
    expect(await findIdempotencyRecord(server.ctx.tx.db, merchant.merchant_id, "first-use-refused")).toBeUndefined();
    const corrected = await post("/v1/payments/off-session/async", json, "first-use-refused");
    expect(corrected.status).toBe(200);
    expect(corrected.replayed).toBeNull();
    await expectRecord("first-use-refused", corrected.body.chargeId, corrected.body);
  });

  it("a first use that loses the key to another request rolls back, leaves that request's record alone, and is answered as a duplicate", async () => {
    const key = "first-use-lost";
    const request = { merchantId: merchant.merchant_id, key, method: "test/FirstUse", requestHash: "same" };
    const scopes: IdempotencyScope[] = [];
    const answer = runIdempotent(server.ctx, request, true, async (start) => {
      if (!("run" in start)) throw new Error("a replay was not expected");
      const scope = start.run;
      scopes.push(scope);
      if (scopes.length > 1) return "ran again";
      // Before its flow wrote the claim, renewing or settling it changes nothing.
      await renewIdempotentRequest(server.ctx, scope);
      await settleFailedRequest(server.ctx, scope, undefined);
      expect(await findIdempotencyRecord(server.ctx.tx.db, merchant.merchant_id, key)).toBeUndefined();
      // Another request with the key commits its claim first (its resource "res-winner")...
      await runIdempotent(server.ctx, request, true, async (other) => {
        if (!("run" in other)) throw new Error("a replay was not expected");
        await server.ctx.tx.write((trx) => bindIdempotentResource(trx, other.run, "res-winner"));
      });
      // ... so this one's insert finds the key taken and its transaction rolls back with what it wrote.
      const write = server.ctx.tx.write(async (trx) => {
        // Something the flow wrote before binding (here another key's record) must not survive.
        await insertIdempotencyRecord(trx, { ...scope.pendingClaim!.record, key: "first-use-rolled-back" });
        await bindIdempotentResource(trx, scope, "res-loser");
      });
      await expect(write).rejects.toBeInstanceOf(IdempotencyKeyTaken);
      expect(scope.pendingClaim?.taken).toBe(true);
      expect(
        await findIdempotencyRecord(server.ctx.tx.db, merchant.merchant_id, "first-use-rolled-back"),
      ).toBeUndefined();
      await settleFailedRequest(server.ctx, scope, { json: "{}", httpStatus: 500 });
      throw new Error("the loser's flow failed");
    });
    // Started again by the locked path: the winner is in flight, so this request is refused as a duplicate.
    await expect(answer).rejects.toMatchObject({ kind: "in_flight" });
    expect(scopes).toHaveLength(1);
    expect(await findIdempotencyRecord(server.ctx.tx.db, merchant.merchant_id, key)).toMatchObject({
      state: "in_flight",
      resourceId: "res-winner",
      responseJson: "",
    });
  });
});
