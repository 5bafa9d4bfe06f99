import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import {
  DunningAction,
  IntervalUnit,
  PastDueReason,
  SubscriptionEndReason,
  SubscriptionService,
  SubscriptionStatus,
} from "../../gen/payments/v1/subscription_service_pb.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { advanceTo, startBillingServer } from "../helpers/sandbox-clock.js";
import { type TestServer } from "../helpers/test-server.js";
import type { WebhookReceiver } from "../helpers/webhook-receiver.js";

/**
 * Issue 29, re-debits and dunning under the simulated bank (docs/guide/recurring-billing.md#re-debits-and-dunning):
 * a 資金不足 debit re-debited a few days later in the same month, once successfully and once until
 * the plan gives up and cancels; a plan that does not re-debit; webhooks and the customer's e-mail.
 */

let server: TestServer;
let receiver: WebhookReceiver;
let stop: () => Promise<void> = async () => {};

beforeAll(async () => {
  ({ server, receiver, stop } = await startBillingServer());
});
afterAll(() => stop());

const subscriptions = () => server.client(SubscriptionService);
const sandbox = () => server.client(SandboxService);

function eventsOf(type: string, subscriptionId: string) {
  const unique = new Map(
    receiver.delivered
      .filter((w) => w.event_type === type && (w.content as any).subscription_id === subscriptionId)
      .map((w) => [w.id, w]),
  );
  return [...unique.values()].map((w) => w.content as any);
}

async function subscribe(dunning: { maxAttempts: number; cancelOnGiveUp: boolean; action?: DunningAction }) {
  const customer = await seedActiveCustomer(server, { balance: 0 });
  const { plan } = await subscriptions().createPlan({
    name: "月謝",
    amount: 8000,
    intervalUnit: IntervalUnit.MONTH,
    intervalCount: 1,
    debitDay: 5,
    dunning: { action: dunning.action ?? DunningAction.RETRY, retryAfterDays: 5, ...dunning },
  });
  const { subscription } = await subscriptions().createSubscription({
    customerId: customer.customerId,
    planId: plan!.planId,
    startPeriod: "2026-02",
  });
  return { customerId: customer.customerId, subscriptionId: subscription!.subscriptionId };
}

describe("re-debits (再振替) and dunning", () => {
  let paid: { customerId: string; subscriptionId: string };
  let gaveUp: { customerId: string; subscriptionId: string };
  let stopped: { customerId: string; subscriptionId: string };

  it("takes a plan's dunning and fills in its defaults", async () => {
    const { plan } = await subscriptions().createPlan({
      name: "x",
      amount: 100,
      intervalUnit: IntervalUnit.MONTH,
      intervalCount: 1,
      debitDay: 5,
      dunning: { action: DunningAction.RETRY },
    });
    expect(plan?.dunning).toMatchObject({ action: DunningAction.RETRY, retryAfterDays: 5, maxAttempts: 2 });
    const plain = await subscriptions().createPlan({
      name: "y",
      amount: 100,
      intervalUnit: IntervalUnit.MONTH,
      intervalCount: 1,
      debitDay: 5,
    });
    expect(plain.plan?.dunning).toMatchObject({ action: DunningAction.STOP, maxAttempts: 1 });
  });

  it("on 資金不足 schedules a re-debit in the same month: PAST_DUE with its attempts, webhook and e-mail", async () => {
    paid = await subscribe({ maxAttempts: 2, cancelOnGiveUp: false });
    gaveUp = await subscribe({ maxAttempts: 2, cancelOnGiveUp: true });
    stopped = await subscribe({ maxAttempts: 1, cancelOnGiveUp: false, action: DunningAction.STOP });
    await advanceTo(server, "2026-02-05");
    const { subscription } = await subscriptions().getSubscription({ subscriptionId: paid.subscriptionId });
    expect([subscription?.status, subscription?.pastDueReason, subscription?.pastDuePeriod]).toEqual([
      SubscriptionStatus.PAST_DUE,
      PastDueReason.RETRYING,
      "2026-02",
    ]);
    expect(subscription?.attempts.map((a) => [a.attempt, a.debitDate, a.status])).toEqual([
      [1, "2026-02-05", ChargeStatus.FAILURE],
      [2, "2026-02-10", ChargeStatus.PENDING],
    ]);
    // Delivery runs beside the jobs: wait for it rather than for one drain.
    await vi.waitFor(async () => {
      await server.webhooks.drain();
      expect(eventsOf("EVENT_TYPE_SUBSCRIPTION_PAST_DUE", paid.subscriptionId)).not.toHaveLength(0);
    });
    const [pastDue, ...more] = eventsOf("EVENT_TYPE_SUBSCRIPTION_PAST_DUE", paid.subscriptionId);
    expect(more).toHaveLength(0);
    expect(pastDue).toMatchObject({
      period: "2026-02",
      attempt: 1,
      past_due_reason: "PAST_DUE_REASON_RETRYING",
      retry_debit_date: "2026-02-10",
      retry_charge_id: subscription?.attempts[1].chargeId,
    });
    const mail = await vi.waitFor(async () => {
      await server.jobs.drain();
      const { messages } = await sandbox().listMailbox({ email: `${paid.customerId}@example.jp` });
      const found = messages.find((m) => m.subject.includes("口座振替ができませんでした"));
      expect(found).toBeDefined();
      return found;
    });
    expect(mail?.body).toContain("2026/02/10に同じ金額を再度振り替えます");
    expect(mail?.body).toContain("¥8,000");
    const stop = (await subscriptions().getSubscription({ subscriptionId: stopped.subscriptionId })).subscription;
    expect([stop?.status, stop?.pastDueReason, stop?.attempts.length]).toEqual([
      SubscriptionStatus.PAST_DUE,
      PastDueReason.NOT_RETRIED,
      1,
    ]);
  });

  it("a re-debit that succeeds returns the subscription to ACTIVE", async () => {
    await sandbox().configureBankAccount({ customerId: paid.customerId, balance: 100_000n });
    await advanceTo(server, "2026-02-10");
    const { subscription } = await subscriptions().getSubscription({ subscriptionId: paid.subscriptionId });
    expect([subscription?.status, subscription?.pastDueReason, subscription?.attempts]).toEqual([
      SubscriptionStatus.ACTIVE,
      PastDueReason.UNSPECIFIED,
      [],
    ]);
    expect(subscription?.periods[0].period).toBe("2026-02");
  });

  it("a re-debit that fails again gives up: CANCELLED per the plan, with the reason, never a third attempt", async () => {
    const { subscription } = await subscriptions().getSubscription({ subscriptionId: gaveUp.subscriptionId });
    expect([subscription?.status, subscription?.endReason, subscription?.pastDueReason]).toEqual([
      SubscriptionStatus.CANCELLED,
      SubscriptionEndReason.DUNNING_GAVE_UP,
      PastDueReason.ATTEMPTS_EXHAUSTED,
    ]);
    expect(subscription?.attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, ChargeStatus.FAILURE],
      [2, ChargeStatus.FAILURE],
    ]);
    await vi.waitFor(async () => {
      await server.webhooks.drain();
      expect(eventsOf("EVENT_TYPE_SUBSCRIPTION_CANCELLED", gaveUp.subscriptionId)).toHaveLength(1);
    });
    expect(eventsOf("EVENT_TYPE_SUBSCRIPTION_PAST_DUE", gaveUp.subscriptionId).map((e) => e.past_due_reason)).toEqual([
      "PAST_DUE_REASON_RETRYING",
      "PAST_DUE_REASON_ATTEMPTS_EXHAUSTED",
    ]);
    expect(eventsOf("EVENT_TYPE_SUBSCRIPTION_CANCELLED", gaveUp.subscriptionId)).toHaveLength(1);
  });

  it("a past-due subscription is still charged the next period, and a success there ends the dunning it gave up", async () => {
    await sandbox().configureBankAccount({ customerId: stopped.customerId, balance: 100_000n });
    await advanceTo(server, "2026-03-05");
    const { subscription } = await subscriptions().getSubscription({ subscriptionId: stopped.subscriptionId });
    expect([subscription?.status, subscription?.periods.map((p) => p.period)]).toEqual([
      SubscriptionStatus.ACTIVE,
      ["2026-03", "2026-02"],
    ]);
  });
});

describe("振替予定のお知らせ (notices)", () => {
  const mailsOf = async (customerId: string) =>
    (await sandbox().listMailbox({ email: `${customerId}@example.jp` })).messages.filter((m) =>
      m.subject.includes("振替予定のお知らせ"),
    );

  it("sends one notice N days before the debit, none for a plan without, none for a paused subscription", async () => {
    const subscribeTo = async (noticeDays: number | undefined) => {
      const customer = await seedActiveCustomer(server, { balance: 100_000 });
      const { plan } = await subscriptions().createPlan({
        name: "会費",
        amount: 4400,
        intervalUnit: IntervalUnit.MONTH,
        intervalCount: 1,
        debitDay: 20,
        noticeDays,
      });
      const { subscription } = await subscriptions().createSubscription({
        customerId: customer.customerId,
        planId: plan!.planId,
        startPeriod: "2026-04",
      });
      return { customerId: customer.customerId, subscriptionId: subscription!.subscriptionId };
    };
    const noticed = await subscribeTo(undefined);
    const silent = await subscribeTo(0);
    const paused = await subscribeTo(5);
    await subscriptions().pauseSubscription({ subscriptionId: paused.subscriptionId });
    await advanceTo(server, "2026-04-16");
    expect(await mailsOf(noticed.customerId)).toHaveLength(0);
    await advanceTo(server, "2026-04-17");
    await advanceTo(server, "2026-04-18");
    const [notice, ...again] = await mailsOf(noticed.customerId);
    expect(again).toHaveLength(0);
    expect(notice.body).toContain("振替日: 2026/04/20");
    expect(notice.body).toContain("金額: ¥4,400");
    expect(notice.body).toContain("停止");
    expect(await mailsOf(silent.customerId)).toHaveLength(0);
    expect(await mailsOf(paused.customerId)).toHaveLength(0);
  });
});
