import { Code } from "@connectrpc/connect";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FirstPeriodRule,
  IntervalUnit,
  SubscriptionService,
  SubscriptionStatus,
} from "../../gen/payments/v1/subscription_service_pb.js";
import { jstInstant } from "../../src/domain/jst.js";
import { signInCustomer } from "../helpers/customer-app.js";
import { refusal, signedInUser, type DashboardBrowser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

/**
 * Recurring billing in the dashboard (docs/guide/dashboard.md#recurring-billing): plans,
 * subscriptions with their next debit, the calendar and the re-debit queue, over HTTP, by role.
 */

let server: TestServer;
let operator: Awaited<ReturnType<typeof signedInUser>>;
let viewer: DashboardBrowser;

beforeAll(async () => {
  server = await startTestServer({ clockStart: new Date("2026-01-10T00:00:00Z"), env: { SANDBOX_CLOCK: "manual" } });
  operator = await signedInUser(server, { role: "operator" });
  viewer = await signedInUser(server, { role: "viewer" });
});
afterAll(async () => {
  await server?.stop();
});

const planRequest = {
  name: "月額会費",
  amount: 3300,
  intervalUnit: IntervalUnit.MONTH,
  intervalCount: 1,
  debitDay: 27,
  firstPeriod: FirstPeriodRule.FULL,
  discount: { off: { case: "percent" as const, value: 50 }, periods: 1 },
};

describe("recurring billing in the dashboard", () => {
  let planId = "";
  const customers: { customerId: string; contractId: string; email: string }[] = [];
  const ids: string[] = [];
  let app: Awaited<ReturnType<typeof signInCustomer>>;

  it("creates and lists plans (operator), refuses a viewer, changes a price from a period", async () => {
    expect((await refusal(viewer.client.createBillingPlan({ plan: planRequest }))).code).toBe(Code.PermissionDenied);
    const { plan } = await operator.client.createBillingPlan({ plan: planRequest });
    planId = plan!.planId;
    const { result } = await viewer.client.listBillingPlans({});
    expect(result?.plans.map((p) => [p.planId, p.name, p.amount])).toEqual([[planId, "月額会費", 3300]]);
    const changed = await operator.client.updateBillingPlanPrice({
      price: { planId, amount: 4000, fromPeriod: "2026-06" },
    });
    expect(changed.plan?.prices.map((p) => [p.amount, p.fromPeriod])).toEqual([
      [3300, ""],
      [4000, "2026-06"],
    ]);
  });

  it("subscribes customers idempotently, with the next debit's date and amount and the plan's name", async () => {
    for (const n of [1, 2, 3]) {
      const email = `billing${n}@example.jp`;
      customers.push({ ...(await seedActiveCustomer(server, { email })), email });
    }
    const own = { planId, customerId: customers[1].customerId, startPeriod: "2026-01", amount: 5000 };
    const requests = [
      { planId, customerId: customers[0].customerId, startPeriod: "2026-01", idempotencyKey: "dash-sub-1" },
      own,
      { planId, customerId: customers[2].customerId, startPeriod: "2026-02" },
    ];
    for (const subscription of requests)
      ids.push(
        (await operator.client.createBillingSubscription({ subscription })).subscription!.subscription!.subscriptionId,
      );
    const again = await operator.client.createBillingSubscription({ subscription: requests[0] });
    expect(again.subscription?.subscription?.subscriptionId).toBe(ids[0]);

    const { subscriptions } = await viewer.client.listBillingSubscriptions({ query: { planId } });
    const rows = new Map(subscriptions.map((s) => [s.subscription!.subscriptionId, s]));
    expect(rows.size).toBe(3);
    expect(rows.get(ids[0])).toMatchObject({ planName: "月額会費", nextDebitAmount: 1650 });
    expect(rows.get(ids[0])?.subscription?.nextDebitDate).toBe("2026-01-27");
    // Its own price, with the plan's first-period discount.
    expect(rows.get(ids[1])?.nextDebitAmount).toBe(2500);
    expect(rows.get(ids[2])?.subscription?.nextDebitDate).toBe("2026-02-27");
  });

  it("sums the next debit dates in the calendar, and follows a pause and a resume", async () => {
    const within31 = await viewer.client.getDebitCalendar({});
    expect(within31.days.map((d) => [d.debitDate, d.subscriptions, Number(d.amount)])).toEqual([
      ["2026-01-27", 2, 4150],
    ]);
    const paused = await operator.client.pauseBillingSubscription({ change: { subscriptionId: ids[0] } });
    expect(paused.subscription?.subscription?.status).toBe(SubscriptionStatus.PAUSED);
    expect(paused.subscription?.nextDebitAmount).toBe(0);
    const within60 = await viewer.client.getDebitCalendar({ days: 60 });
    expect(within60.days.map((d) => [d.debitDate, d.subscriptions, Number(d.amount)])).toEqual([
      ["2026-01-27", 1, 2500],
      ["2026-02-27", 1, 1650],
    ]);
    const resumed = await operator.client.resumeBillingSubscription({ change: { subscriptionId: ids[0] } });
    expect(resumed.subscription?.subscription?.status).toBe(SubscriptionStatus.ACTIVE);
    expect((await viewer.client.getDebitCalendar({})).days[0].subscriptions).toBe(2);
  });

  it("cancels now or at period end (operator only)", async () => {
    const denied = await refusal(viewer.client.cancelBillingSubscription({ change: { subscriptionId: ids[1] } }));
    expect(denied.code).toBe(Code.PermissionDenied);
    const now = await operator.client.cancelBillingSubscription({ change: { subscriptionId: ids[1] } });
    expect(now.subscription?.subscription?.status).toBe(SubscriptionStatus.CANCELLED);
    const atEnd = await operator.client.cancelBillingSubscription({
      change: { subscriptionId: ids[2], atPeriodEnd: true },
    });
    // Nothing charged yet: "at period end" ends it now, as CancelSubscription does.
    expect(atEnd.subscription?.subscription?.status).toBe(SubscriptionStatus.CANCELLED);
    expect(atEnd.subscription?.nextDebitAmount).toBe(0);
  });

  it("shows the customer's stop request on the subscription", async () => {
    app = await signInCustomer(server, customers[0].email);
    await app.client.requestStop({ contractId: customers[0].contractId, reason: "引っ越しのため" });
    const { subscription } = await viewer.client.getBillingSubscription({ query: { subscriptionId: ids[0] } });
    expect(subscription?.stopRequest?.reason).toBe("引っ越しのため");
    expect(subscription?.stopRequest?.contractId).toBe(customers[0].contractId);
    const viaApi = await server.client(SubscriptionService).getSubscription({ subscriptionId: ids[0] });
    expect(viaApi.stopRequest?.reason).toBe("引っ越しのため");
    const other = await server.client(SubscriptionService).getSubscription({ subscriptionId: ids[1] });
    expect(other.stopRequest).toBeUndefined();
  });

  it("lists an empty re-debit queue while nothing is past due", async () => {
    const queue = await viewer.client.listRedebitQueue({});
    expect(queue.subscriptions).toEqual([]);
  });

  it("keeps another merchant's subscription out of reach", async () => {
    const missing = await refusal(viewer.client.getBillingSubscription({ query: { subscriptionId: "sub-unknown" } }));
    expect(missing.code).toBe(Code.NotFound);
  });
  it("lists the customer's subscriptions in the customer app, then a charged period with its outcome", async () => {
    const before = await app.client.listCustomerSubscriptions({});
    expect(before.subscriptions.map((s) => [s.subscriptionId, s.planName, s.nextDebitDate, s.nextDebitAmount])).toEqual(
      [[ids[0], "月額会費", "2026-01-27", 1650]],
    );
    expect(before.subscriptions[0]).toMatchObject({ merchantName: server.merchant.name, stopRequested: true });
    const seconds = Math.round((jstInstant("2026-01-28", "01:00").getTime() - server.clock.now().getTime()) / 1000);
    await server.client(SandboxService).advanceClock({ seconds: BigInt(seconds) });
    await server.jobs.drain();
    // Eighteen days on, the session has expired: sign in again.
    app = await signInCustomer(server, customers[0].email);
    const after = await app.client.listCustomerSubscriptions({});
    expect(after.subscriptions[0].periods.map((p) => [p.period, p.debitDate, p.amount, p.outcome])).toEqual([
      ["2026-01", "2026-01-27", 1650, ChargeStatus.SUCCESS],
    ]);
    expect(after.subscriptions[0]).toMatchObject({ nextDebitDate: "2026-02-27", nextDebitAmount: 3300 });
    const plain = await fetch(`${server.url}/app/v1/subscriptions`, {
      headers: {
        cookie: [...app.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        "x-csrf-token": app.cookies.get("furikomi_app_csrf") ?? "",
      },
    });
    expect(plain.status).toBe(200);
    expect((await plain.json()).subscriptions[0].subscriptionId).toBe(ids[0]);
  });

  it("writes an audit entry for each change made in the dashboard, none for the API key's", async () => {
    const { plan } = await server.client(SubscriptionService).createPlan(planRequest);
    const admin = await signedInUser(server, { role: "admin" });
    const entriesOf = async (action: string) =>
      (await admin.client.listAuditLog({ filter: { action }, pageSize: 100 })).entries
        .reverse()
        .map((e) => [e.action, e.target, e.email, JSON.parse(e.detailsJson)]);
    expect(await entriesOf("plan")).toEqual([
      ["plan.create", planId, operator.email, { name: "月額会費", price: 3300 }],
      ["plan.price_update", planId, operator.email, { version: 2, price: 4000, from_period: "2026-06" }],
    ]);
    expect((await entriesOf("plan")).some(([, target]) => target === plan?.planId)).toBe(false);
    const subscriptionEntries = await entriesOf("subscription");
    expect(subscriptionEntries.map(([action, target]) => [action, target])).toEqual([
      ["subscription.create", ids[0]],
      ["subscription.create", ids[1]],
      ["subscription.create", ids[2]],
      ["subscription.pause", ids[0]],
      ["subscription.resume", ids[0]],
      ["subscription.cancel", ids[1]],
      ["subscription.cancel", ids[2]],
    ]);
    expect(subscriptionEntries[0][3]).toEqual({
      customer_id: customers[0].customerId,
      plan_id: planId,
      start_period: "2026-01",
    });
    expect(subscriptionEntries[5][3]).toEqual({ status: "cancelled", cancel_at_period_end: false });
  });
});
