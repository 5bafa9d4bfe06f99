import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ApiSource, ChargeStatus, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { ledgerOf } from "../../src/storage/bank-accounts.js";
import { setWebhookUrl } from "../../src/flows/merchants.js";
import { seedCharge } from "../helpers/charges.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { api, dialects, startTestServer, type TestServer } from "../helpers/test-server.js";
import type { CreatedMerchant } from "../../src/flows/merchants.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

// 2026-03-10 14:00 JST, a Tuesday; the default bank's 15:00 JST cutoff is 06:00 UTC.
const clockStart = new Date("2026-03-10T05:00:00Z");
const hourMs = 3_600_000;
// A refund transfer settles at 09:00 JST on the next business day: four days on is always past it
// (a weekend or a holiday in between included).
const untilSettled = 4 * 24 * hourMs;
// Background work runs only when a test drains it (jobs.drain(), webhooks.drain()), so a poller
// cannot take a job a drain then does not wait for.
const manualWorkers = { WORKERS: "off" };

const messages = {
  notOwned: "transaction does not belong to the merchant",
  notCancellable: "transaction is not in a cancellable state",
  exceeds: "refund amount exceeds refundable amount",
  partial: "transaction has already been partially refunded; only partial refunds are allowed",
};

/**
 * A paid charge, through the API: an active customer charged with the (synchronous) off-session
 * call, so the charge succeeds and the debit is booked on the simulated bank. `fromYesterday`
 * moves the clock a day on afterwards, so the charge is no longer of today (JST).
 */
async function paidCharge(
  server: TestServer,
  options: { amount?: number; merchant?: CreatedMerchant; fromYesterday?: boolean } = {},
): Promise<{ chargeId: string; customerId: string }> {
  const merchant = options.merchant ?? server.merchant;
  const { customerId } = await seedActiveCustomer(server, { merchantId: merchant.merchant_id });
  const { charge } = await server
    .client(PaymentService, merchant.api_key)
    .createOffSessionPayment({ customerId, charge: { price: options.amount ?? 1200, description: "green tea" } });
  expect(charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
  if (options.fromYesterday) server.clock.advance(24 * hourMs);
  return { chargeId: charge!.chargeId, customerId };
}

/** A charge that did not succeed: FAILURE through the API (the bank refuses), others as rows. */
async function unpaidCharge(
  server: TestServer,
  status: ChargeStatus.FAILURE | ChargeStatus.PENDING | ChargeStatus.WAITING_EKYC,
): Promise<string> {
  if (status === ChargeStatus.FAILURE) {
    const { customerId } = await seedActiveCustomer(server, { balance: 0 });
    const { chargeId } = await server
      .client(PaymentService)
      .createOffSessionPaymentAsync({ customerId, charge: { price: 1200 } });
    await server.jobs.drain();
    expect((await getCharge(server, chargeId)).chargeStatus).toBe("CHARGE_STATUS_FAILURE");
    return chargeId;
  }
  // PENDING and WAITING_EKYC are passing states the flows leave quickly: written as rows.
  return seedCharge(server, {
    merchantId: server.merchant.merchant_id,
    apiSource: ApiSource.ON_SESSION,
    status,
    description: "green tea",
  });
}

function refundOverHttp(server: TestServer, json: Record<string, unknown>, apiKey?: string) {
  return api(server, "/v1/refund", { method: "POST", json, apiKey });
}

async function refundOverConnect(
  server: TestServer,
  request: {
    chargeId?: string;
    amount?: number;
    reason?: string;
    metadata?: Record<string, string>;
    idempotencyKey?: string;
  },
  apiKey?: string,
) {
  return server
    .client(PaymentService, apiKey)
    .refund(request)
    .then(
      (response) => ({ response, error: undefined }),
      (error) => ({ response: undefined, error: ConnectError.from(error) }),
    );
}

/** A business-rule refusal looks the same on both paths: 500 / internal, the contract's text (docs/reference/contract.md#refunds), no code. */
async function expectRefusal(
  server: TestServer,
  request: { chargeId: string; amount?: number },
  message: string,
  apiKey?: string,
) {
  const res = await refundOverHttp(
    server,
    { charge_id: request.chargeId, ...(request.amount === undefined ? {} : { amount: request.amount }) },
    apiKey,
  );
  expect(res.status).toBe(500);
  const body = await res.json();
  expect(body.code).toBe("internal");
  expect(body.message).toBe(message);
  expect(body.details ?? []).toEqual([]);

  const { error } = await refundOverConnect(server, request, apiKey);
  expect(error?.code).toBe(Code.Internal);
  expect(error?.rawMessage).toBe(message);
  expect(error?.findDetails(ErrorInfoSchema)).toEqual([]);
}

/** The refund events of a charge in the outbox (the charge's own events left out). */
async function refundEventsOf(server: TestServer, chargeId: string) {
  const rows = await server.ctx.tx.db
    .selectFrom("events")
    .selectAll()
    .where("charge_id", "=", chargeId)
    .where("event_type_name", "like", "EVENT_TYPE_REFUND_%")
    .orderBy("created_at")
    .execute();
  return rows.map((row) => ({ type: row.event_type_name, content: JSON.parse(row.content_json) }));
}

async function refundCredits(server: TestServer, customerId: string) {
  return (await ledgerOf(server.ctx.tx.db, customerId)).filter((entry) => entry.reference.startsWith("rfd-"));
}

async function getCharge(server: TestServer, chargeId: string) {
  const res = await api(server, `/v1/charge/${chargeId}`);
  expect(res.status).toBe(200);
  return (await res.json()).charge;
}

describe("refunds", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ clockStart, env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  describe("malformed requests answer 400 naming the field", () => {
    it.each([
      ["charge_id missing", { amount: 100 }, "charge_id"],
      ["amount zero", { charge_id: "trx-x", amount: 0 }, "amount"],
      ["amount negative", { charge_id: "trx-x", amount: -5 }, "amount"],
      ["amount not whole", { charge_id: "trx-x", amount: 1.5 }, "amount"],
      ["amount not a number", { charge_id: "trx-x", amount: "lots" }, "amount"],
      ["amount above the price range", { charge_id: "trx-x", amount: 10_000_001 }, "amount"],
    ])("on the plain path: %s", async (_name, json, field) => {
      const res = await refundOverHttp(server, json);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.code).toBe("invalid_argument");
      expect(body.message).toContain(field);
    });

    it("over Connect", async () => {
      const missing = await refundOverConnect(server, { amount: 100 });
      expect(missing.error?.code).toBe(Code.InvalidArgument);
      expect(missing.error?.rawMessage).toContain("charge_id");
      const zero = await refundOverConnect(server, { chargeId: "trx-x", amount: 0 });
      expect(zero.error?.code).toBe(Code.InvalidArgument);
      expect(zero.error?.rawMessage).toContain("amount");
    });
  });

  describe("business-rule violations answer 500 with the contract's messages", () => {
    it("an unknown charge and another merchant's charge do not belong to the merchant", async () => {
      await expectRefusal(server, { chargeId: "trx-doesnotexist" }, messages.notOwned);
      const other = await server.newMerchant();
      const { chargeId } = await paidCharge(server, { merchant: other });
      await expectRefusal(server, { chargeId, amount: 100 }, messages.notOwned);
      // The owner can refund it: the refusal was about ownership.
      const { response } = await refundOverConnect(server, { chargeId, amount: 100 }, other.api_key);
      expect(response?.refund?.status).toBe(RefundStatus.PENDING);
    });

    it.each([
      ["failed", ChargeStatus.FAILURE],
      ["pending", ChargeStatus.PENDING],
      ["waiting for eKYC", ChargeStatus.WAITING_EKYC],
    ] as const)("a %s charge is not in a cancellable state", async (_name, status) => {
      const chargeId = await unpaidCharge(server, status);
      await expectRefusal(server, { chargeId }, messages.notCancellable);
      await expectRefusal(server, { chargeId, amount: 1 }, messages.notCancellable);
    });

    it("a cancelled charge is not in a cancellable state", async () => {
      const { chargeId } = await paidCharge(server);
      const res = await refundOverHttp(server, { charge_id: chargeId });
      expect(res.status).toBe(200);
      expect((await res.json()).charge.chargeStatus).toBe("CHARGE_STATUS_CANCELLED");
      await expectRefusal(server, { chargeId }, messages.notCancellable);
      await expectRefusal(server, { chargeId, amount: 1 }, messages.notCancellable);
    });

    it("a fully refunded charge is not in a cancellable state, before and after settlement", async () => {
      const { chargeId } = await paidCharge(server, { fromYesterday: true });
      const res = await refundOverHttp(server, { charge_id: chargeId });
      expect(res.status).toBe(200);
      await expectRefusal(server, { chargeId, amount: 1 }, messages.notCancellable);
      await server.client(SandboxService).settleRefunds({ refundId: (await res.json()).refund.refundId });
      expect((await getCharge(server, chargeId)).chargeStatus).toBe("CHARGE_STATUS_REFUNDED");
      await expectRefusal(server, { chargeId }, messages.notCancellable);
      await expectRefusal(server, { chargeId, amount: 1 }, messages.notCancellable);
    });

    it("an amount above the refundable remainder exceeds the refundable amount", async () => {
      const { chargeId } = await paidCharge(server, { amount: 1000 });
      await expectRefusal(server, { chargeId, amount: 1001 }, messages.exceeds);
      expect((await refundOverHttp(server, { charge_id: chargeId, amount: 600 })).status).toBe(200);
      await expectRefusal(server, { chargeId, amount: 401 }, messages.exceeds);
      expect((await getCharge(server, chargeId)).refundableAmount).toBe(400);
    });

    it("a full refund after a partial one is refused; the remainder as an amount is accepted", async () => {
      const { chargeId } = await paidCharge(server, { amount: 1000 });
      expect((await refundOverHttp(server, { charge_id: chargeId, amount: 300 })).status).toBe(200);
      await expectRefusal(server, { chargeId }, messages.partial);
      const { response } = await refundOverConnect(server, { chargeId, amount: 700 });
      expect(response?.refund?.amount).toBe(700);
      expect(response?.charge?.refundableAmount).toBe(0);
    });
  });

  describe("partial refunds settle through the bank", () => {
    it("partial, partial, then the remainder: REFUNDED once the refunds reach the amount, each credited once", async () => {
      const { chargeId, customerId } = await paidCharge(server, { amount: 3000, fromYesterday: true });

      const first = await refundOverHttp(server, {
        charge_id: chargeId,
        amount: 1000,
        reason: "damaged box",
        metadata: { order: "A-1" },
      });
      expect(first.status).toBe(200);
      const firstBody = await first.json();
      expect(firstBody.refund).toMatchObject({
        chargeId,
        amount: 1000,
        status: "REFUND_STATUS_PENDING",
        reason: "damaged box",
        metadata: { order: "A-1" },
        cancellation: false,
      });
      expect(firstBody.refund.refundId).toMatch(/^rfd-/);
      expect(firstBody.refund.createdAt).toMatch(/Z$/);
      expect(firstBody.charge).toMatchObject({
        chargeId,
        chargeStatus: "CHARGE_STATUS_SUCCESS",
        refundedAmount: 1000,
        refundableAmount: 2000,
      });

      const second = await refundOverConnect(server, { chargeId, amount: 500 });
      expect(second.response?.refund?.status).toBe(RefundStatus.PENDING);
      expect(second.response?.charge?.refundableAmount).toBe(1500);

      // Nothing moves before the settlement time; the first two settle the next business morning.
      await server.jobs.drain();
      expect(await refundCredits(server, customerId)).toEqual([]);
      server.clock.advance(untilSettled);
      await server.jobs.drain();
      let charge = await getCharge(server, chargeId);
      expect(charge).toMatchObject({
        chargeStatus: "CHARGE_STATUS_SUCCESS",
        refundedAmount: 1500,
        refundableAmount: 1500,
      });
      expect(charge.refunds.map((r: { status: string }) => r.status)).toEqual([
        "REFUND_STATUS_SUCCEEDED",
        "REFUND_STATUS_SUCCEEDED",
      ]);

      const remainder = await refundOverHttp(server, { charge_id: chargeId, amount: 1500 });
      expect(remainder.status).toBe(200);
      const remainderId = (await remainder.json()).refund.refundId;
      server.clock.advance(untilSettled);
      await server.jobs.drain();
      charge = await getCharge(server, chargeId);
      expect(charge).toMatchObject({
        chargeStatus: "CHARGE_STATUS_REFUNDED",
        refundedAmount: 3000,
        refundableAmount: 0,
      });
      expect(charge.refunds).toHaveLength(3);

      const credits = await refundCredits(server, customerId);
      expect(credits.map((c) => c.amount).sort((x, y) => x - y)).toEqual([500, 1000, 1500]);
      expect(new Set(credits.map((c) => c.reference)).size).toBe(3);
      expect(credits.at(-1)?.balanceAfter).toBe(1_000_000);

      const events = await refundEventsOf(server, chargeId);
      expect(events.map((e) => e.type)).toEqual([
        "EVENT_TYPE_REFUND_SUCCEEDED",
        "EVENT_TYPE_REFUND_SUCCEEDED",
        "EVENT_TYPE_REFUND_SUCCEEDED",
      ]);
      expect(events[2].content).toMatchObject({
        refund_id: remainderId,
        charge_id: chargeId,
        customer: customerId,
        amount: 1500,
        refunded_amount: 3000,
        refundable_amount: 0,
        charge_status: "CHARGE_STATUS_REFUNDED",
        currency: "JPY",
        cancellation: false,
      });
      // The first two settle in one run of the jobs, in either order.
      expect(events.find((e) => (e.content as { amount: number }).amount === 1000)?.content).toMatchObject({
        amount: 1000,
        reason: "damaged box",
        metadata: { order: "A-1" },
        charge_status: "CHARGE_STATUS_SUCCESS",
      });
    });

    it("a settlement that meets the bank under maintenance stays pending and is retried until the bank answers", async () => {
      const merchant = await server.newMerchant("Maintenance Shop");
      const { chargeId, customerId } = await paidCharge(server, { merchant, amount: 800 });
      const refund = (await refundOverConnect(server, { chargeId, amount: 300 }, merchant.api_key)).response!.refund!;
      const sandbox = server.client(SandboxService, merchant.api_key);
      await sandbox.setBankMaintenance({ underMaintenance: true });

      server.clock.advance(untilSettled);
      await server.jobs.drain();
      expect(
        (await server.client(PaymentService, merchant.api_key).getRefund({ refundId: refund.refundId })).refund?.status,
      ).toBe(RefundStatus.PENDING);
      expect(await refundCredits(server, customerId)).toEqual([]);
      expect(await refundEventsOf(server, chargeId)).toEqual([]);

      await sandbox.setBankMaintenance({ underMaintenance: false });
      server.clock.advance(5 * 60_000); // the first retry
      await server.jobs.drain();
      expect(
        (await server.client(PaymentService, merchant.api_key).getRefund({ refundId: refund.refundId })).refund?.status,
      ).toBe(RefundStatus.SUCCEEDED);
      expect((await refundCredits(server, customerId)).map((c) => c.amount)).toEqual([300]);
      expect((await refundEventsOf(server, chargeId)).map((e) => e.type)).toEqual(["EVENT_TYPE_REFUND_SUCCEEDED"]);
    });

    it("GetRefund reads a refund by id on both paths; another merchant's refund is not found", async () => {
      const { chargeId } = await paidCharge(server);
      const { response } = await refundOverConnect(server, { chargeId, amount: 200 });
      const refundId = response!.refund!.refundId;
      const res = await api(server, `/v1/refund/${refundId}`);
      expect(res.status).toBe(200);
      expect((await res.json()).refund).toMatchObject({
        refundId,
        chargeId,
        amount: 200,
        status: "REFUND_STATUS_PENDING",
      });
      const { refund } = await server.client(PaymentService).getRefund({ refundId });
      expect(refund?.amount).toBe(200);

      const other = await server.newMerchant();
      expect((await api(server, `/v1/refund/${refundId}`, { apiKey: other.api_key })).status).toBe(404);
      expect((await api(server, "/v1/refund/rfd-missing")).status).toBe(404);
    });
  });

  describe("idempotency keys", () => {
    it("a refund replayed with the same key on the plain path refunds once and answers the first response", async () => {
      const { chargeId } = await paidCharge(server, { amount: 1000, fromYesterday: true });
      const send = () =>
        api(server, "/v1/refund", {
          method: "POST",
          json: { charge_id: chargeId, amount: 300 },
          headers: { "idempotency-key": `refund-${chargeId}` },
        });
      const first = await send();
      const second = await send();
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.headers.get("idempotent-replayed")).toBe("true");
      const [a, b] = [await first.json(), await second.json()];
      expect(b.refund.refundId).toBe(a.refund.refundId);
      const charge = await getCharge(server, chargeId);
      expect(charge.refunds).toHaveLength(1);
      expect(charge).toMatchObject({ refundedAmount: 300, refundableAmount: 700 });
      // The same key with another amount is another request: refused, nothing refunded.
      const other = await api(server, "/v1/refund", {
        method: "POST",
        json: { charge_id: chargeId, amount: 400 },
        headers: { "idempotency-key": `refund-${chargeId}` },
      });
      expect(other.status).toBe(400);
      expect((await getCharge(server, chargeId)).refunds).toHaveLength(1);
    });

    it("concurrent duplicates over Connect refund once", async () => {
      const { chargeId, customerId } = await paidCharge(server, { amount: 1000, fromYesterday: true });
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          refundOverConnect(server, { chargeId, amount: 250, idempotencyKey: `dup-${chargeId}` }),
        ),
      );
      const refundIds = new Set(results.filter((r) => r.response).map((r) => r.response!.refund!.refundId));
      expect(refundIds.size).toBe(1);
      // A duplicate that arrived while the first was in flight is refused with aborted, not run.
      expect(results.every((r) => r.response || r.error?.code === Code.Aborted)).toBe(true);
      await server.client(SandboxService).settleRefunds({ refundId: [...refundIds][0] });
      expect((await refundCredits(server, customerId)).map((c) => c.amount)).toEqual([250]);
      expect((await getCharge(server, chargeId)).refunds).toHaveLength(1);
    });

    it("a retry that takes over the key of a request whose process died answers the refund it made", async () => {
      const { chargeId } = await paidCharge(server, { amount: 1000, fromYesterday: true });
      const key = `crash-${chargeId}`;
      const { response } = await refundOverConnect(server, { chargeId, amount: 100, idempotencyKey: key });
      // As if the process died after the refund committed and before the response was stored.
      await server.ctx.tx.write((trx) =>
        trx
          .updateTable("idempotency_keys")
          .set({
            state: "in_flight",
            response_json: "",
            http_status: 0,
            lease_until: new Date(server.clock.now().getTime() - 1).toISOString(),
          })
          .where("merchant_id", "=", server.merchant.merchant_id)
          .where("idempotency_key", "=", key)
          .execute(),
      );
      const retry = await refundOverConnect(server, { chargeId, amount: 100, idempotencyKey: key });
      expect(retry.response?.refund?.refundId).toBe(response?.refund?.refundId);
      expect((await getCharge(server, chargeId)).refunds).toHaveLength(1);
    });
  });

  describe("settlement failure", () => {
    it("metadata sandboxRefundOutcome=fail fails the refund at settlement: REFUND_FAILED, the amount refundable again", async () => {
      const { chargeId, customerId } = await paidCharge(server, { amount: 2000 });
      const res = await refundOverHttp(server, {
        charge_id: chargeId,
        amount: 800,
        metadata: { sandboxRefundOutcome: "fail" },
      });
      expect(res.status).toBe(200);
      const refundId = (await res.json()).refund.refundId;
      expect((await getCharge(server, chargeId)).refundableAmount).toBe(1200);

      server.clock.advance(untilSettled);
      await server.jobs.drain();
      const charge = await getCharge(server, chargeId);
      expect(charge).toMatchObject({
        chargeStatus: "CHARGE_STATUS_SUCCESS",
        refundedAmount: 0,
        refundableAmount: 2000,
      });
      expect(charge.refunds[0]).toMatchObject({
        refundId,
        status: "REFUND_STATUS_FAILED",
        error: { code: "refund_failed", message: "the receiving bank rejected the refund transfer (sandbox)" },
      });
      expect(await refundCredits(server, customerId)).toEqual([]);

      const [event] = await refundEventsOf(server, chargeId);
      expect(event.type).toBe("EVENT_TYPE_REFUND_FAILED");
      expect(event.content.transaction).toMatchObject({
        id: chargeId,
        customer: customerId,
        status: 1,
        description: "green tea",
        merchant_name: "Test Shop",
        initial_amount: 2000,
        discount: 0,
        final_amount: 2000,
        currency: "JPY",
      });
      expect(event.content.transaction.created_at).toMatch(/Z$/);
      expect(event.content.refund).toMatchObject({
        refund_id: refundId,
        error: { code: "refund_failed", message: "the receiving bank rejected the refund transfer (sandbox)" },
      });
      // The transaction side carries no refund result (docs/reference/contract.md#events, rule 3).
      expect(event.content.transaction).not.toHaveProperty("error");

      // A failed refund is no partial refund: the whole charge can still be refunded.
      const again = await refundOverHttp(server, { charge_id: chargeId });
      expect(again.status).toBe(200);
      expect((await again.json()).refund.amount).toBe(2000);
    });

    it("SettleRefunds settles at once, or fails with the given root cause, only the caller's refunds", async () => {
      const merchant = await server.newMerchant("Settle Shop");
      const a = await paidCharge(server, { merchant, amount: 1000 });
      const b = await paidCharge(server, { merchant, amount: 1000 });
      const foreign = await paidCharge(server, { amount: 1000 });
      const ra = (await refundOverConnect(server, { chargeId: a.chargeId, amount: 100 }, merchant.api_key)).response!
        .refund!;
      const rb = (await refundOverConnect(server, { chargeId: b.chargeId, amount: 200 }, merchant.api_key)).response!
        .refund!;
      const rf = (await refundOverConnect(server, { chargeId: foreign.chargeId, amount: 300 })).response!.refund!;

      const sandbox = server.client(SandboxService, merchant.api_key);
      const failed = await sandbox.settleRefunds({
        refundId: rb.refundId,
        fail: true,
        failureMessage: "account closed",
      });
      expect(failed.refunds.map((r) => [r.refundId, r.status, r.error?.message])).toEqual([
        [rb.refundId, RefundStatus.FAILED, "account closed"],
      ]);

      const res = await api(server, "/v1/sandbox/refunds/settle", {
        method: "POST",
        json: {},
        apiKey: merchant.api_key,
      });
      expect(res.status).toBe(200);
      const settled = (await res.json()).refunds;
      expect(settled).toHaveLength(1);
      expect(settled[0]).toMatchObject({ refundId: ra.refundId, status: "REFUND_STATUS_SUCCEEDED" });
      expect((await refundCredits(server, a.customerId)).map((c) => c.amount)).toEqual([100]);
      expect((await refundEventsOf(server, b.chargeId)).map((e) => e.type)).toEqual(["EVENT_TYPE_REFUND_FAILED"]);
      expect((await refundEventsOf(server, b.chargeId))[0].content.refund.error.message).toBe("account closed");

      // The other merchant's refund was left alone, and its id is not found for this merchant.
      expect((await server.client(PaymentService).getRefund({ refundId: rf.refundId })).refund?.status).toBe(
        RefundStatus.PENDING,
      );
      expect(
        (
          await api(server, "/v1/sandbox/refunds/settle", {
            method: "POST",
            json: { refund_id: rf.refundId },
            apiKey: merchant.api_key,
          })
        ).status,
      ).toBe(404);

      // The queued settlement job finds the refunds settled and leaves them as they are.
      server.clock.advance(untilSettled);
      await server.jobs.drain();
      expect((await refundCredits(server, a.customerId)).map((c) => c.amount)).toEqual([100]);
      expect((await refundEventsOf(server, a.chargeId)).map((e) => e.type)).toEqual(["EVENT_TYPE_REFUND_SUCCEEDED"]);
    });
  });

  describe("refund webhooks reach the merchant's receiver, signed", () => {
    it("delivers REFUND_SUCCEEDED for a cancellation and a settlement, and REFUND_FAILED for a failed transfer", async () => {
      const merchant = await server.newMerchant("Webhook Shop");
      const receiver = await startWebhookReceiver(merchant.webhook_secret);
      try {
        await setWebhookUrl(server.ctx, merchant.merchant_id, receiver.url);
        const cancelled = await paidCharge(server, { merchant, amount: 700 });
        const settled = await paidCharge(server, { merchant, amount: 900 });
        const failed = await paidCharge(server, { merchant, amount: 1100 });
        const refund = (chargeId: string, amount?: number, metadata?: Record<string, string>) =>
          refundOverConnect(server, { chargeId, amount, metadata }, merchant.api_key).then(
            ({ response }) => response!.refund!.refundId,
          );
        const cancellationId = await refund(cancelled.chargeId);
        const settledId = await refund(settled.chargeId, 400);
        const failedId = await refund(failed.chargeId, 500, { sandboxRefundOutcome: "fail" });

        server.clock.advance(untilSettled);
        await server.jobs.drain();
        await server.webhooks.drain();
        const refundEvents = () => receiver.delivered.filter((d) => d.event_type.startsWith("EVENT_TYPE_REFUND_"));
        await receiver.waitFor(() => refundEvents().length >= 3);

        expect(receiver.rejected).toEqual([]);
        // REFUND_SUCCEEDED carries refund_id at the top; REFUND_FAILED inside `refund` (docs/reference/contract.md#events).
        const refundIdOf = (content: Record<string, unknown>) =>
          (content.refund_id ?? (content.refund as { refund_id: string }).refund_id) as string;
        const byRefund = new Map(refundEvents().map((d) => [refundIdOf(d.content), d]));
        expect(byRefund.get(cancellationId)).toMatchObject({
          event_type: "EVENT_TYPE_REFUND_SUCCEEDED",
          content: {
            charge_id: cancelled.chargeId,
            amount: 700,
            charge_status: "CHARGE_STATUS_CANCELLED",
            cancellation: true,
          },
        });
        expect(byRefund.get(settledId)).toMatchObject({
          event_type: "EVENT_TYPE_REFUND_SUCCEEDED",
          content: {
            charge_id: settled.chargeId,
            customer: settled.customerId,
            amount: 400,
            refunded_amount: 400,
            refundable_amount: 500,
            charge_status: "CHARGE_STATUS_SUCCESS",
            cancellation: false,
          },
        });
        expect(byRefund.get(failedId)).toMatchObject({
          event_type: "EVENT_TYPE_REFUND_FAILED",
          content: {
            transaction: {
              id: failed.chargeId,
              customer: failed.customerId,
              status: 1,
              merchant_name: "Webhook Shop",
              final_amount: 1100,
            },
            refund: {
              refund_id: failedId,
              error: { code: "refund_failed", message: "the receiving bank rejected the refund transfer (sandbox)" },
            },
          },
        });
        expect(byRefund.get(failedId)?.id).toMatch(/^mwh-/);
      } finally {
        await receiver.close();
      }
    });
  });
});

describe("same-day cancellation vs refund, across the bank's 15:00 JST cutoff (06:00 UTC)", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ clockStart, env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  it("cancels up to 14:59:59.999 JST, transfers back from 15:00 JST, settling at 09:00 JST the next business day", async () => {
    // The charges succeed at 14:00 JST on Tuesday 10 March.
    const sameDay = await paidCharge(server, { amount: 5000 });
    const sameDayAsAmount = await paidCharge(server, { amount: 5000 });
    const afterCutoff = await paidCharge(server, { amount: 5000 });

    server.clock.advance(hourMs - 1); // 2026-03-10T05:59:59.999Z = 14:59:59.999 JST
    const cancelled = await refundOverHttp(server, { charge_id: sameDay.chargeId, reason: "order cancelled" });
    expect(cancelled.status).toBe(200);
    const body = await cancelled.json();
    expect(body.refund).toMatchObject({
      amount: 5000,
      status: "REFUND_STATUS_SUCCEEDED",
      cancellation: true,
      reason: "order cancelled",
    });
    expect(body.charge).toMatchObject({
      chargeStatus: "CHARGE_STATUS_CANCELLED",
      refundedAmount: 5000,
      refundableAmount: 0,
    });
    // The whole amount given explicitly, with no earlier refund, is a full refund too.
    const asAmount = await refundOverConnect(server, { chargeId: sameDayAsAmount.chargeId, amount: 5000 });
    expect(asAmount.response?.refund).toMatchObject({ status: RefundStatus.SUCCEEDED, cancellation: true });
    expect(asAmount.response?.charge?.chargeStatus).toBe(ChargeStatus.CANCELLED);

    const [event] = await refundEventsOf(server, sameDay.chargeId);
    expect(event.type).toBe("EVENT_TYPE_REFUND_SUCCEEDED");
    expect(event.content).toMatchObject({
      refund_id: body.refund.refundId,
      charge_id: sameDay.chargeId,
      amount: 5000,
      refunded_amount: 5000,
      refundable_amount: 0,
      charge_status: "CHARGE_STATUS_CANCELLED",
      cancellation: true,
      settled_at: "2026-03-10T05:59:59.999Z",
    });

    server.clock.advance(1); // 2026-03-10T06:00:00.000Z = 15:00 JST, the cutoff
    const transfer = await refundOverHttp(server, { charge_id: afterCutoff.chargeId });
    expect(transfer.status).toBe(200);
    const transferBody = await transfer.json();
    expect(transferBody.refund).toMatchObject({ amount: 5000, status: "REFUND_STATUS_PENDING", cancellation: false });
    expect(transferBody.charge).toMatchObject({
      chargeStatus: "CHARGE_STATUS_SUCCESS",
      refundedAmount: 5000,
      refundableAmount: 0,
    });
    expect(await refundEventsOf(server, afterCutoff.chargeId)).toEqual([]);

    // Settles at 09:00 JST on Wednesday 11 March (00:00 UTC), not a moment before.
    server.clock.advance(18 * hourMs - 1);
    await server.jobs.drain();
    expect((await getCharge(server, afterCutoff.chargeId)).chargeStatus).toBe("CHARGE_STATUS_SUCCESS");
    server.clock.advance(1);
    await server.jobs.drain();
    expect((await getCharge(server, afterCutoff.chargeId)).chargeStatus).toBe("CHARGE_STATUS_REFUNDED");
    expect((await refundEventsOf(server, afterCutoff.chargeId)).map((e) => e.type)).toEqual([
      "EVENT_TYPE_REFUND_SUCCEEDED",
    ]);
    // The cancellation moved no money; the transfer was credited once.
    expect(await refundCredits(server, sameDay.customerId)).toEqual([]);
    expect((await refundCredits(server, afterCutoff.customerId)).map((c) => [c.reference, c.amount])).toEqual([
      [transferBody.refund.refundId, 5000],
    ]);
  });
});

describe.each(dialects)("100 concurrent partial refunds on one charge (%s)", (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ dialect, clockStart, env: manualWorkers });
  });
  afterAll(async () => server?.stop());

  it("never refund more than the charge, and each accepted refund is credited once", async () => {
    const { chargeId, customerId } = await paidCharge(server, { amount: 10_000 });
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        refundOverHttp(server, { charge_id: chargeId, amount: 150 }).then(async (res) => ({
          status: res.status,
          body: await res.json(),
        })),
      ),
    );
    const accepted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    // 66 × 150 = 9,900; the 67th would make 10,050.
    expect(accepted).toHaveLength(66);
    expect(refused.every((a) => a.status === 500 && a.body.message === messages.exceeds)).toBe(true);
    expect(new Set(accepted.map((a) => a.body.refund.refundId)).size).toBe(66);

    const charge = await getCharge(server, chargeId);
    expect(charge).toMatchObject({ refundedAmount: 9900, refundableAmount: 100 });

    server.clock.advance(untilSettled);
    await server.jobs.drain();
    const settled = await server.ctx.tx.db
      .selectFrom("charges")
      .select(["refunded_amount", "pending_refund_amount", "status"])
      .where("id", "=", chargeId)
      .executeTakeFirstOrThrow();
    expect(settled).toEqual({ refunded_amount: 9900, pending_refund_amount: 0, status: ChargeStatus.SUCCESS });
    const credits = await refundCredits(server, customerId);
    expect(credits).toHaveLength(66);
    expect(new Set(credits.map((c) => c.reference))).toEqual(new Set(accepted.map((a) => a.body.refund.refundId)));
    expect(credits.reduce((sum, c) => sum + Number(c.amount), 0)).toBe(9900);
    expect(
      (await refundEventsOf(server, chargeId)).filter((e) => e.type === "EVENT_TYPE_REFUND_SUCCEEDED"),
    ).toHaveLength(66);
  });

  it("the database refuses refunds beyond the amount even without the application's check", async () => {
    const { chargeId } = await paidCharge(server, { amount: 1000 });
    const overdraw = server.ctx.tx.write((trx) =>
      trx.updateTable("charges").set({ pending_refund_amount: 1001 }).where("id", "=", chargeId).execute(),
    );
    await expect(overdraw).rejects.toThrow(/charges_refunds_within_amount|CHECK constraint/i);
  });
});
