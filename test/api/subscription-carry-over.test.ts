import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import {
  DunningAction,
  IntervalUnit,
  PastDueReason,
  SubscriptionEndReason,
  SubscriptionService,
  SubscriptionStatus,
} from "../../gen/payments/v1/subscription_service_pb.js";
import { signedInUser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { advanceTo, startBillingServer } from "../helpers/sandbox-clock.js";
import { api, type TestServer } from "../helpers/test-server.js";
import type { WebhookReceiver } from "../helpers/webhook-receiver.js";

/**
 * 合算 (DUNNING_ACTION_CARRY_OVER, docs/guide/recurring-billing.md#re-debits-and-dunning): a 資金不足
 * failure's amount is added to the next period's debit; at most max_attempts debits of a period
 * hold; a later success returns the subscription to ACTIVE. Simulated bank, manual clock.
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

async function subscribe(cancelOnGiveUp: boolean) {
  const customer = await seedActiveCustomer(server, { balance: 0 });
  const { plan } = await subscriptions().createPlan({
    name: "月謝",
    amount: 8000,
    intervalUnit: IntervalUnit.MONTH,
    intervalCount: 1,
    debitDay: 5,
    dunning: { action: DunningAction.CARRY_OVER, cancelOnGiveUp },
  });
  const { subscription } = await subscriptions().createSubscription({
    customerId: customer.customerId,
    planId: plan!.planId,
    startPeriod: "2026-02",
  });
  return { customerId: customer.customerId, subscriptionId: subscription!.subscriptionId };
}

const read = async (subscriptionId: string) =>
  (await subscriptions().getSubscription({ subscriptionId })).subscription!;
const chargeOf = async (chargeId: string) =>
  (await server.client(PaymentService).getCharge({ charge: chargeId })).charge!;

async function eventsOf(type: string, subscriptionId: string, count: number) {
  return vi.waitFor(async () => {
    await server.webhooks.drain();
    const unique = new Map(
      receiver.delivered
        .filter((w) => w.event_type === type && (w.content as any).subscription_id === subscriptionId)
        .map((w) => [w.id, w.content as any]),
    );
    expect(unique.size).toBe(count);
    return [...unique.values()];
  });
}

describe("合算: the unpaid amount added to the next period's debit", () => {
  let paid: { customerId: string; subscriptionId: string };
  let unpaid: { customerId: string; subscriptionId: string };
  let cancelled: { customerId: string; subscriptionId: string };

  it("takes DUNNING_ACTION_CARRY_OVER with two attempts by default, over Connect and plain HTTP", async () => {
    const res = await api(server, "/v1/plans", {
      method: "POST",
      json: {
        name: "会費",
        amount: 100,
        interval_unit: "INTERVAL_UNIT_MONTH",
        interval_count: 1,
        debit_day: 5,
        dunning: { action: "DUNNING_ACTION_CARRY_OVER" },
      },
    });
    expect(res.status).toBe(200);
    const { plan } = await res.json();
    expect(plan.dunning).toMatchObject({ action: "DUNNING_ACTION_CARRY_OVER", maxAttempts: 2 });
    const read = await subscriptions().getPlan({ planId: plan.planId });
    expect(read.plan?.dunning?.action).toBe(DunningAction.CARRY_OVER);
  });

  it("on 資金不足 carries the amount: PAST_DUE, CARRIED_OVER, with the webhook and the e-mail", async () => {
    paid = await subscribe(false);
    unpaid = await subscribe(false);
    cancelled = await subscribe(true);
    await advanceTo(server, "2026-02-05");
    for (const { subscriptionId } of [paid, unpaid, cancelled]) {
      const subscription = await read(subscriptionId);
      expect([
        subscription.status,
        subscription.pastDueReason,
        subscription.pastDuePeriod,
        subscription.carriedAmount,
        subscription.attempts.map((a) => [a.attempt, a.status]),
      ]).toEqual([
        SubscriptionStatus.PAST_DUE,
        PastDueReason.CARRIED_OVER,
        "2026-02",
        8000,
        [[1, ChargeStatus.FAILURE]],
      ]);
    }
    // The dashboard's next debit amount is the next period's own plus the carried one.
    const viewer = await signedInUser(server, { role: "viewer" });
    const view = await viewer.client.getBillingSubscription({ query: { subscriptionId: paid.subscriptionId } });
    expect(view.subscription?.nextDebitAmount).toBe(16000);
    // The calendar's total of the date holds the carried amounts too (合算), and says how much.
    const { days } = await viewer.client.getDebitCalendar({ days: 31 });
    expect(days.map((d) => [d.debitDate, d.subscriptions, Number(d.amount), Number(d.carriedAmount)])).toEqual([
      ["2026-03-05", 3, 3 * 16000, 3 * 8000],
    ]);
    const [pastDue] = await eventsOf("EVENT_TYPE_SUBSCRIPTION_PAST_DUE", paid.subscriptionId, 1);
    expect(pastDue).toMatchObject({
      period: "2026-02",
      attempt: 1,
      past_due_reason: "PAST_DUE_REASON_CARRIED_OVER",
      carried_amount: 8000,
      next_period: "2026-03",
    });
    expect(pastDue.retry_charge_id ?? "").toBe("");
    const mail = await vi.waitFor(async () => {
      await server.jobs.drain();
      const { messages } = await sandbox().listMailbox({ email: `${paid.customerId}@example.jp` });
      const found = messages.find((m) => m.subject.includes("口座振替ができませんでした"));
      expect(found).toBeDefined();
      return found!;
    });
    expect(mail.body).toContain("次回の振替に合算して振り替えます");
  });

  it("debits the next period's own amount plus the carried one, in one charge; its success returns to ACTIVE", async () => {
    await sandbox().configureBankAccount({ customerId: paid.customerId, balance: 100_000n });
    await advanceTo(server, "2026-03-02");
    await advanceTo(server, "2026-03-05");
    const notice = (await sandbox().listMailbox({ email: `${paid.customerId}@example.jp` })).messages.find(
      (m) => m.subject.includes("振替予定のお知らせ") && m.body.includes("2026/03/05"),
    );
    expect(notice?.body).toContain("金額: ¥16,000");
    const subscription = await read(paid.subscriptionId);
    expect([subscription.status, subscription.pastDueReason, subscription.carriedAmount]).toEqual([
      SubscriptionStatus.ACTIVE,
      PastDueReason.UNSPECIFIED,
      0,
    ]);
    const march = subscription.periods[0];
    expect([march.period, march.finalAmount, march.carriedAmount, march.carriedPeriods]).toEqual([
      "2026-03",
      8000,
      8000,
      ["2026-02"],
    ]);
    const charge = await chargeOf(march.chargeId);
    expect([charge.chargeStatus, charge.finalAmount]).toEqual([ChargeStatus.SUCCESS, 16000]);
    const scheduled = await eventsOf("EVENT_TYPE_SUBSCRIPTION_PAYMENT_SCHEDULED", paid.subscriptionId, 2);
    expect(scheduled.map((e) => [e.period, e.final_amount, e.carried_amount ?? 0])).toEqual([
      ["2026-02", 8000, 0],
      ["2026-03", 8000, 8000],
    ]);
    const { account } = await sandbox().getBankAccount({ customerId: paid.customerId });
    expect(account?.balance).toBe(100_000n - 16_000n);
  });

  it("never debits a period more than max_attempts times: a second failure gives it up and carries only the new period", async () => {
    const subscription = await read(unpaid.subscriptionId);
    expect([
      subscription.status,
      subscription.pastDueReason,
      subscription.pastDuePeriod,
      subscription.carriedAmount,
    ]).toEqual([SubscriptionStatus.PAST_DUE, PastDueReason.CARRIED_OVER, "2026-03", 8000]);
    expect((await chargeOf(subscription.periods[0].chargeId)).finalAmount).toBe(16000);
    const pastDue = await eventsOf("EVENT_TYPE_SUBSCRIPTION_PAST_DUE", unpaid.subscriptionId, 2);
    expect(pastDue.map((e) => [e.period, e.carried_amount ?? 0])).toEqual([
      ["2026-02", 8000],
      ["2026-03", 8000],
    ]);
    await advanceTo(server, "2026-04-06");
    const april = (await read(unpaid.subscriptionId)).periods[0];
    expect([april.period, april.debitDate, april.carriedAmount, april.carriedPeriods]).toEqual([
      "2026-04",
      "2026-04-06",
      8000,
      ["2026-03"],
    ]);
    expect((await chargeOf(april.chargeId)).finalAmount).toBe(16000);
  });

  it("cancels per the plan when it gives up, carrying nothing", async () => {
    const subscription = await read(cancelled.subscriptionId);
    expect([
      subscription.status,
      subscription.endReason,
      subscription.pastDueReason,
      subscription.pastDuePeriod,
      subscription.carriedAmount,
    ]).toEqual([
      SubscriptionStatus.CANCELLED,
      SubscriptionEndReason.DUNNING_GAVE_UP,
      PastDueReason.ATTEMPTS_EXHAUSTED,
      "2026-02",
      0,
    ]);
    expect(subscription.periods.map((p) => p.period)).toEqual(["2026-03", "2026-02"]);
    await eventsOf("EVENT_TYPE_SUBSCRIPTION_CANCELLED", cancelled.subscriptionId, 1);
  });
});
