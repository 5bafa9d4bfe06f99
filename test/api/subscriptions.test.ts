import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import {
  FirstPeriodRule,
  IntervalUnit,
  SubscriptionEndReason,
  SubscriptionService,
  SubscriptionStatus,
} from "../../gen/payments/v1/subscription_service_pb.js";
import { addMonths, periodOfDate } from "../../src/domain/billing-period.js";
import { jstDateOf, jstInstant } from "../../src/domain/jst.js";
import { reinstateMerchant, suspendMerchant } from "../../src/flows/merchant-review.js";
import { chargeDueSubscriptions } from "../../src/flows/subscription-cycle.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { advanceTo, startBillingServer } from "../helpers/sandbox-clock.js";
import { api, type TestServer } from "../helpers/test-server.js";
import type { WebhookReceiver } from "../helpers/webhook-receiver.js";

/**
 * Issue 29, first slice: plans, subscriptions and the cycle under the simulated bank, over the API,
 * with the sandbox's manual clock moved by SandboxService.AdvanceClock (docs/guide/recurring-billing.md).
 */

let server: TestServer;
let receiver: WebhookReceiver;
let stop: () => Promise<void> = async () => {};

beforeAll(async () => {
  ({ server, receiver, stop } = await startBillingServer());
});
afterAll(() => stop());

const subscriptions = () => server.client(SubscriptionService);

async function refusal(call: Promise<unknown>): Promise<{ code: Code; reason: string }> {
  const error = await call.then(
    () => undefined,
    (e) => ConnectError.from(e),
  );
  if (!error) throw new Error("the call was not refused");
  return { code: error.code, reason: error.findDetails(ErrorInfoSchema)[0]?.reason ?? "" };
}

/** The events about a subscription (its own, and its charges'), once each: delivery is at least once, deduplicated on the id. */
function eventsOf(type: string, subscriptionId: string) {
  const unique = new Map(
    receiver.delivered
      .filter(
        (w) =>
          w.event_type === type &&
          ((w.content as any).subscription_id === subscriptionId ||
            (w.content as any).metadata?.subscription_id === subscriptionId),
      )
      .map((w) => [w.id, w]),
  );
  return [...unique.values()];
}

describe("plans", () => {
  it("creates, reads and lists a plan over Connect and its plain HTTP path", async () => {
    const { plan } = await subscriptions().createPlan({
      name: "月額会費",
      amount: 3300,
      intervalUnit: IntervalUnit.MONTH,
      intervalCount: 1,
      debitDay: 27,
      firstPeriod: FirstPeriodRule.FULL,
    });
    expect(plan?.planId).toMatch(/^pln-/);
    expect(plan?.prices.map((p) => [p.version, p.amount, p.fromPeriod])).toEqual([[1, 3300, ""]]);
    const res = await api(server, `/v1/plans/${plan?.planId}`);
    expect(res.status).toBe(200);
    expect((await res.json()).plan.debitDay).toBe(27);
    const listed = await api(server, "/v1/plans?page_size=1");
    expect((await listed.json()).plans).toHaveLength(1);
  });

  it("refuses a debit day and 末日 together, and an unknown plan", async () => {
    const both = await api(server, "/v1/plans", {
      method: "POST",
      json: {
        name: "x",
        amount: 100,
        interval_unit: "INTERVAL_UNIT_MONTH",
        interval_count: 1,
        debit_day: 5,
        debit_on_last_day: true,
      },
    });
    expect(both.status).toBe(400);
    expect(await refusal(subscriptions().getPlan({ planId: "pln-none" }))).toEqual({
      code: Code.NotFound,
      reason: "PLAN_NOT_FOUND",
    });
  });

  it("replays a create with the same idempotency key", async () => {
    const request = {
      name: "年会費",
      amount: 12000,
      intervalUnit: IntervalUnit.YEAR,
      intervalCount: 1,
      debitOnLastDay: true,
      idempotencyKey: "plan-yearly-1",
    };
    const first = await subscriptions().createPlan(request);
    const again = await subscriptions().createPlan(request);
    expect(again.plan?.planId).toBe(first.plan?.planId);
  });
});

describe("a year of a plan in seconds (the sandbox recipe)", () => {
  let subscriptionId = "";
  let planId = "";

  it("subscribes a customer with an active contract, and refuses one without or a start already due", async () => {
    const customer = await seedActiveCustomer(server, { balance: 1_000_000 });
    const { plan } = await subscriptions().createPlan({
      name: "月額プラン",
      amount: 1000,
      intervalUnit: IntervalUnit.MONTH,
      intervalCount: 1,
      debitOnLastDay: true,
      discount: { off: { case: "percent", value: 50 }, periods: 3 },
    });
    planId = plan!.planId;
    const late = subscriptions().createSubscription({
      customerId: customer.customerId,
      planId,
      startPeriod: "2025-12",
    });
    expect(await refusal(late)).toEqual({ code: Code.FailedPrecondition, reason: "START_PERIOD_PASSED" });
    const nobody = subscriptions().createSubscription({ customerId: "cus-none", planId, startPeriod: "2026-01" });
    expect(await refusal(nobody)).toEqual({ code: Code.FailedPrecondition, reason: "CONTRACT_NOT_ACTIVE" });
    const res = await api(server, "/v1/subscriptions", {
      method: "POST",
      json: { customer_id: customer.customerId, plan_id: planId, start_period: "2026-01", metadata: { member: "A-1" } },
      headers: { "idempotency-key": "sub-year-1" },
    });
    expect(res.status).toBe(200);
    const { subscription } = await res.json();
    subscriptionId = subscription.subscriptionId;
    expect([subscription.status, subscription.nextPeriod, subscription.nextDebitDate]).toEqual([
      "SUBSCRIPTION_STATUS_ACTIVE",
      "2026-01",
      "2026-02-02",
    ]);
    await server.webhooks.drain();
    expect(eventsOf("EVENT_TYPE_SUBSCRIPTION_CREATED", subscriptionId)).toHaveLength(1);
  });

  it("charges twelve periods, one each, on their debit dates, with the discount, webhooks received", async () => {
    for (let month = 0; month < 12; month++) {
      const { subscription } = await subscriptions().getSubscription({ subscriptionId });
      await advanceTo(server, subscription!.nextDebitDate);
    }
    const { subscription } = await subscriptions().getSubscription({ subscriptionId });
    const periods = [...subscription!.periods].reverse();
    expect(periods.map((p) => p.debitDate)).toEqual([
      "2026-02-02",
      "2026-03-02",
      "2026-03-31",
      "2026-04-30",
      "2026-06-01",
      "2026-06-30",
      "2026-07-31",
      "2026-08-31",
      "2026-09-30",
      "2026-11-02",
      "2026-11-30",
      "2027-01-04",
    ]);
    expect(periods.map((p) => p.finalAmount)).toEqual([
      500, 500, 500, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
    ]);
    const charges = await Promise.all(
      periods.map((p) => server.client(PaymentService).getCharge({ charge: p.chargeId })),
    );
    expect(new Set(charges.map((c) => c.charge?.chargeId)).size).toBe(12);
    expect(charges.every((c) => c.charge?.chargeStatus === ChargeStatus.SUCCESS)).toBe(true);
    expect([charges[0].charge?.initialAmount, charges[0].charge?.finalAmount]).toEqual([1000, 500]);
    expect(charges[5].charge?.metadata).toMatchObject({
      subscription_id: subscriptionId,
      subscription_period: "2026-06",
      member: "A-1",
    });
    const successes = eventsOf("EVENT_TYPE_CHARGE_SUCCESS", subscriptionId);
    expect(successes).toHaveLength(12);
    expect(successes[0].content).toMatchObject({ initial_amount: 1000, discount: 500, final_amount: 500 });
    expect(eventsOf("EVENT_TYPE_SUBSCRIPTION_PAYMENT_SCHEDULED", subscriptionId)).toHaveLength(12);
    expect([subscription?.nextPeriod, subscription?.nextDebitDate]).toEqual(["2027-01", "2027-02-01"]);
  });

  it("refuses a price change from a charged period, and charges the next period at the new price", async () => {
    const charged = subscriptions().updatePlanPrice({ planId, amount: 1500, fromPeriod: "2026-12" });
    expect(await refusal(charged)).toEqual({ code: Code.FailedPrecondition, reason: "PLAN_PERIOD_ALREADY_CHARGED" });
    const { plan } = await subscriptions().updatePlanPrice({ planId, amount: 1500, fromPeriod: "2027-01" });
    expect(plan?.prices.map((p) => [p.version, p.amount, p.fromPeriod])).toEqual([
      [1, 1000, ""],
      [2, 1500, "2027-01"],
    ]);
    await advanceTo(server, "2027-02-01");
    const { subscription } = await subscriptions().getSubscription({ subscriptionId });
    expect([
      subscription?.periods[0].period,
      subscription?.periods[0].finalAmount,
      subscription?.periods[0].priceVersion,
    ]).toEqual(["2027-01", 1500, 2]);
  });

  it("cancels at period end: no further charge, CANCELLED when the next period comes", async () => {
    const { subscription } = await subscriptions().cancelSubscription({ subscriptionId, atPeriodEnd: true });
    expect([
      subscription?.status,
      subscription?.endPeriod,
      subscription?.cancelAtPeriodEnd,
      subscription?.nextDebitDate,
    ]).toEqual([SubscriptionStatus.ACTIVE, "2027-01", true, ""]);
    await advanceTo(server, "2027-03-02");
    const after = (await subscriptions().getSubscription({ subscriptionId })).subscription!;
    expect([after.status, after.endReason, after.periods.length]).toEqual([
      SubscriptionStatus.CANCELLED,
      SubscriptionEndReason.END_PERIOD,
      13,
    ]);
    expect(eventsOf("EVENT_TYPE_SUBSCRIPTION_CANCELLED", subscriptionId)).toHaveLength(1);
  });
});

describe("pause, resume, cancel now", () => {
  it("lets paused periods pass uncharged and resumes from the first not yet due", async () => {
    const customer = await seedActiveCustomer(server, { balance: 1_000_000 });
    const { plan } = await subscriptions().createPlan({
      name: "隔月",
      amount: 2000,
      intervalUnit: IntervalUnit.MONTH,
      intervalCount: 2,
      debitDay: 10,
    });
    const startPeriod = addMonths(periodOfDate(jstDateOf(server.clock.now())), 1);
    const { subscription } = await subscriptions().createSubscription({
      customerId: customer.customerId,
      planId: plan!.planId,
      startPeriod,
    });
    const id = subscription!.subscriptionId;
    await subscriptions().pauseSubscription({ subscriptionId: id });
    await advanceTo(server, `${startPeriod}-15`);
    expect((await subscriptions().getSubscription({ subscriptionId: id })).subscription?.periods).toHaveLength(0);
    const resumed = (await subscriptions().resumeSubscription({ subscriptionId: id })).subscription!;
    // Every second month from the start: the paused start period passed, the next one is two months on.
    expect([resumed.status, resumed.nextPeriod]).toEqual([SubscriptionStatus.ACTIVE, addMonths(startPeriod, 2)]);
    const cancelled = (await subscriptions().cancelSubscription({ subscriptionId: id })).subscription!;
    expect([cancelled.status, cancelled.endReason]).toEqual([
      SubscriptionStatus.CANCELLED,
      SubscriptionEndReason.CANCELLED,
    ]);
    expect(await refusal(subscriptions().resumeSubscription({ subscriptionId: id }))).toEqual({
      code: Code.FailedPrecondition,
      reason: "SUBSCRIPTION_STATE_CONFLICT",
    });
  });
});

describe("two cycles at once", () => {
  it("charges each period once when several cycles run the same debit date together", async () => {
    const { plan } = await subscriptions().createPlan({
      name: "同時",
      amount: 700,
      intervalUnit: IntervalUnit.MONTH,
      intervalCount: 1,
      debitDay: 20,
    });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const customer = await seedActiveCustomer(server, { balance: 100_000 });
      const { subscription } = await subscriptions().createSubscription({
        customerId: customer.customerId,
        planId: plan!.planId,
        startPeriod: "2027-04",
      });
      ids.push(subscription!.subscriptionId);
    }
    server.clock.advance(jstInstant("2027-04-20", "01:00").getTime() - server.clock.now().getTime());
    const reports = await Promise.all([1, 2, 3].map(() => chargeDueSubscriptions(server.ctx)));
    // The server's own cycle job may run beside them (its worker wakes on its own): together no
    // more than one charge per period, and every period charged (below).
    expect(reports.reduce((sum, r) => sum + r.charged, 0)).toBeLessThanOrEqual(30);
    await server.jobs.drain();
    const rows = await server.ctx.tx.db
      .selectFrom("subscription_attempts")
      .select(["subscription_id", "charge_id"])
      .where("subscription_id", "in", ids)
      .execute();
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => r.subscription_id)).size).toBe(30);
  });
});

describe("a suspended merchant", () => {
  it("charges no one while suspended: the due period passes uncharged; reinstated, the next period is charged", async () => {
    const customer = await seedActiveCustomer(server, { balance: 100_000 });
    const { plan } = await subscriptions().createPlan({
      name: "停止中",
      amount: 1500,
      intervalUnit: IntervalUnit.MONTH,
      intervalCount: 1,
      debitDay: 5,
    });
    const start = addMonths(periodOfDate(jstDateOf(server.clock.now())), 1);
    const { subscription } = await subscriptions().createSubscription({
      customerId: customer.customerId,
      planId: plan!.planId,
      startPeriod: start,
    });
    const id = subscription!.subscriptionId;
    const notices = async () =>
      (await server.client(SandboxService).listMailbox({ email: `${customer.customerId}@example.jp` })).messages.filter(
        (m) => m.subject.includes("振替予定のお知らせ"),
      );
    await suspendMerchant(server.ctx, server.merchant.merchant_id, "本人確認の再審査");
    // In the notice window (three days before the debit date, which falls on the 5th–7th): no notice.
    await advanceTo(server, `${start}-04`);
    expect(await notices()).toHaveLength(0);
    await advanceTo(server, `${start}-15`);
    const passed = (await subscriptions().getSubscription({ subscriptionId: id })).subscription!;
    expect([passed.status, passed.periods.length, passed.nextPeriod]).toEqual([
      SubscriptionStatus.ACTIVE,
      0,
      addMonths(start, 1),
    ]);
    expect(eventsOf("EVENT_TYPE_SUBSCRIPTION_PAYMENT_SCHEDULED", id)).toHaveLength(0);
    await reinstateMerchant(server.ctx, server.merchant.merchant_id);
    await advanceTo(server, `${addMonths(start, 1)}-04`);
    expect(await notices()).toHaveLength(1);
    await advanceTo(server, `${addMonths(start, 1)}-15`);
    const charged = (await subscriptions().getSubscription({ subscriptionId: id })).subscription!;
    expect(charged.periods.map((period) => [period.period, period.chargeId !== ""])).toEqual([
      [addMonths(start, 1), true],
    ]);
    expect(eventsOf("EVENT_TYPE_SUBSCRIPTION_PAYMENT_SCHEDULED", id)).toHaveLength(1);
  });
});
