import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import {
  DunningAction,
  IntervalUnit,
  PastDueReason,
  SubscriptionService,
  SubscriptionStatus,
} from "../../gen/payments/v1/subscription_service_pb.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { advanceTo, startBillingServer } from "../helpers/sandbox-clock.js";
import { api, type TestServer } from "../helpers/test-server.js";
import type { WebhookReceiver } from "../helpers/webhook-receiver.js";

/**
 * The sandbox recipe of docs/guide/recurring-billing.md#in-the-sandbox-a-year-in-seconds, with a
 * failure: twelve months of a re-debiting plan, the fourth month's debit failing for 資金不足 (the
 * balance emptied over the plain HTTP path, as the recipe does), its re-debit succeeding after a
 * top-up, every webhook received. Only the public API: AdvanceClock, ConfigureBankAccount, Get*.
 */

let server: TestServer;
let receiver: WebhookReceiver;
let stop: () => Promise<void> = async () => {};

beforeAll(async () => {
  ({ server, receiver, stop } = await startBillingServer());
});
afterAll(() => stop());

const subscriptions = () => server.client(SubscriptionService);
const read = async (subscriptionId: string) =>
  (await subscriptions().getSubscription({ subscriptionId })).subscription!;

/** ConfigureBankAccount over its plain HTTP path, as the recipe's curl does. */
async function setBalance(customerId: string, balance: number) {
  const res = await api(server, `/v1/sandbox/bank-accounts/${customerId}`, { method: "POST", json: { balance } });
  expect(res.status).toBe(200);
}

/** Webhooks about the subscription (its events and its charges'), once each, waiting for delivery. */
async function webhooksOf(subscriptionId: string, expected: Record<string, number>) {
  return vi.waitFor(async () => {
    await server.webhooks.drain();
    const unique = new Map(
      receiver.delivered
        .filter(
          (w) =>
            (w.content as any).subscription_id === subscriptionId ||
            (w.content as any).metadata?.subscription_id === subscriptionId,
        )
        .map((w) => [w.id, w]),
    );
    const counts: Record<string, number> = {};
    for (const w of unique.values()) counts[w.event_type] = (counts[w.event_type] ?? 0) + 1;
    expect(counts).toEqual(expected);
    return [...unique.values()];
  });
}

describe("the sandbox recipe: a year of a plan with a failure and a re-debit", () => {
  it("charges twelve periods, re-debits the failed one in its month, and sends every webhook", async () => {
    const customer = await seedActiveCustomer(server, { balance: 1_000_000 });
    const { plan } = await subscriptions().createPlan({
      name: "月額会費",
      amount: 3300,
      intervalUnit: IntervalUnit.MONTH,
      intervalCount: 1,
      debitDay: 10,
      dunning: { action: DunningAction.RETRY, retryAfterDays: 5, maxAttempts: 2 },
    });
    const { subscription } = await subscriptions().createSubscription({
      customerId: customer.customerId,
      planId: plan!.planId,
      startPeriod: "2026-02",
    });
    const id = subscription!.subscriptionId;
    let redebit = { chargeId: "", debitDate: "" };
    for (let month = 0; month < 12; month++) {
      if (month === 3) await setBalance(customer.customerId, 0);
      await advanceTo(server, (await read(id)).nextDebitDate);
      if (month !== 3) continue;
      const failed = await read(id);
      expect([failed.status, failed.pastDueReason, failed.pastDuePeriod]).toEqual([
        SubscriptionStatus.PAST_DUE,
        PastDueReason.RETRYING,
        "2026-05",
      ]);
      expect(failed.attempts.map((a) => [a.attempt, a.status])).toEqual([
        [1, ChargeStatus.FAILURE],
        [2, ChargeStatus.PENDING],
      ]);
      redebit = failed.attempts[1];
      await setBalance(customer.customerId, 1_000_000);
      await advanceTo(server, redebit.debitDate);
      expect((await read(id)).status).toBe(SubscriptionStatus.ACTIVE);
    }

    const after = await read(id);
    const periods = [...after.periods].reverse();
    expect(periods.map((p) => p.period)).toEqual([
      "2026-02",
      "2026-03",
      "2026-04",
      "2026-05",
      "2026-06",
      "2026-07",
      "2026-08",
      "2026-09",
      "2026-10",
      "2026-11",
      "2026-12",
      "2027-01",
    ]);
    // 10 May 2026 is a Sunday: debited on the 11th, re-debited five days later on the next business day.
    expect([periods[3].debitDate, redebit.debitDate]).toEqual(["2026-05-11", "2026-05-18"]);
    expect([after.status, after.nextPeriod]).toEqual([SubscriptionStatus.ACTIVE, "2027-02"]);
    const payments = server.client(PaymentService);
    const charges = await Promise.all(periods.map((p) => payments.getCharge({ charge: p.chargeId })));
    expect(charges.map((c) => c.charge?.chargeStatus)).toEqual(
      periods.map((_, index) => (index === 3 ? ChargeStatus.FAILURE : ChargeStatus.SUCCESS)),
    );
    const retried = (await payments.getCharge({ charge: redebit.chargeId })).charge!;
    expect([retried.chargeStatus, retried.finalAmount, retried.metadata.subscription_attempt]).toEqual([
      ChargeStatus.SUCCESS,
      3300,
      "2",
    ]);

    const webhooks = await webhooksOf(id, {
      EVENT_TYPE_SUBSCRIPTION_CREATED: 1,
      EVENT_TYPE_SUBSCRIPTION_PAYMENT_SCHEDULED: 12,
      EVENT_TYPE_CHARGE_SUCCESS: 12,
      EVENT_TYPE_CHARGE_FAIL: 1,
      EVENT_TYPE_SUBSCRIPTION_PAST_DUE: 1,
    });
    const pastDue = webhooks.find((w) => w.event_type === "EVENT_TYPE_SUBSCRIPTION_PAST_DUE")!.content as any;
    expect(pastDue).toMatchObject({
      period: "2026-05",
      retry_debit_date: redebit.debitDate,
      retry_charge_id: redebit.chargeId,
    });
    const successes = webhooks.filter((w) => w.event_type === "EVENT_TYPE_CHARGE_SUCCESS");
    expect(successes.some((w) => (w.content as any).id === redebit.chargeId)).toBe(true);
  });
});
