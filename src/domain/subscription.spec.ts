import { describe, expect, it } from "vitest";
import { bankCalendar } from "./bank-calendar.js";
import { japaneseNationalHolidays } from "../ports/national-holidays.js";
import { jstInstant } from "./jst.js";
import type { PlanRecord } from "./plan.js";
import { RequestRefusal } from "./request-refusal.js";
import {
  type BillingRules,
  cancelSubscription,
  debitAmountOf,
  decideDuePeriod,
  firstScheduleOf,
  pauseSubscription,
  resumeSubscription,
  type SubscriptionRecord,
} from "./subscription.js";
import { afterFailedAttempt, afterPaidAttempt, decideAfterFailure, defaultDunning } from "./dunning.js";
import { ErrorType } from "../../gen/payments/v1/enums_pb.js";

const rules: BillingRules = {
  calendar: bankCalendar(japaneseNationalHolidays),
  chargeMomentOf: (debitDate) => jstInstant(debitDate),
};
const created = new Date("2026-01-10T00:00:00Z");

function plan(changes: Partial<PlanRecord> = {}): PlanRecord {
  return {
    id: "pln-1",
    merchantId: "mer-1",
    name: "月額",
    intervalUnit: "month",
    intervalCount: 1,
    debitDay: "last",
    firstPeriod: "full",
    discount: null,
    dunning: defaultDunning,
    noticeDays: 3,
    prices: [{ version: 1, amount: 1000, fromPeriod: null, createdAt: created }],
    metadata: {},
    createdAt: created,
    updatedAt: created,
    ...changes,
  };
}

function subscription(of: PlanRecord, startPeriod: string, changes: Partial<SubscriptionRecord> = {}) {
  const first = firstScheduleOf(startPeriod, of, rules, created);
  const record: SubscriptionRecord = {
    id: "sub-1",
    merchantId: "mer-1",
    customerId: "cus-1",
    contractId: "con-1",
    planId: of.id,
    amount: null,
    startPeriod,
    endPeriod: null,
    status: "active",
    cancelAtPeriodEnd: false,
    endReason: null,
    nextPeriod: first.period,
    nextDebitDate: first.debitDate,
    lastPeriod: null,
    description: "",
    metadata: {},
    createdAt: created,
    updatedAt: created,
    endedAt: null,
    pastDueReason: null,
    pastDuePeriod: null,
    carry: [],
    ...changes,
  };
  return record;
}

/** Runs the cycle's decisions one period after another, as the cycle does. */
function run(of: PlanRecord, record: SubscriptionRecord, periods: number) {
  const out: { period: string; debitDate: string; final: number; discount: number }[] = [];
  let current = record;
  for (let i = 0; i < periods; i++) {
    const decision = decideDuePeriod(current, of, rules, created);
    if (decision.kind === "end") break;
    const { period, debitDate, amounts } = decision.period;
    out.push({ period, debitDate, final: amounts.finalAmount, discount: amounts.discount });
    current = {
      ...current,
      lastPeriod: period,
      nextPeriod: decision.next.period,
      nextDebitDate: decision.next.debitDate,
    };
  }
  return out;
}

describe("subscriptions", () => {
  it("charges a year of 末日 periods on their business days, the 3か月半額 discount first", () => {
    const half = plan({ discount: { kind: "percent", percent: 50, periods: 3 } });
    const year = run(half, subscription(half, "2026-01"), 12);
    expect(year.map((p) => p.debitDate)).toEqual([
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
    expect(year.map((p) => p.final)).toEqual([500, 500, 500, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000]);
  });

  it("skips the first period under FIRST_PERIOD_RULE_NONE and discounts from the first charged", () => {
    const none = plan({ firstPeriod: "none", discount: { kind: "percent", percent: 100, periods: 1 } });
    const periods = run(none, subscription(none, "2026-02"), 3);
    expect(periods.map((p) => [p.period, p.final])).toEqual([
      ["2026-03", 0],
      ["2026-04", 1000],
      ["2026-05", 1000],
    ]);
  });

  it("bills every N months and yearly", () => {
    const quarterly = plan({ intervalCount: 3, debitDay: 27 });
    expect(run(quarterly, subscription(quarterly, "2026-03"), 4).map((p) => p.debitDate)).toEqual([
      "2026-03-27",
      "2026-06-29",
      "2026-09-28",
      "2026-12-28",
    ]);
    const yearly = plan({ intervalUnit: "year", debitDay: "last" });
    expect(run(yearly, subscription(yearly, "2027-02"), 2).map((p) => p.debitDate)).toEqual([
      "2027-03-01",
      "2028-02-29",
    ]);
  });

  it("uses the price version of each period, and a subscription's own price over the plan's", () => {
    const changed = plan({
      prices: [
        { version: 1, amount: 1000, fromPeriod: null, createdAt: created },
        { version: 2, amount: 1500, fromPeriod: "2026-04", createdAt: created },
      ],
    });
    expect(run(changed, subscription(changed, "2026-02"), 4).map((p) => p.final)).toEqual([1000, 1000, 1500, 1500]);
    expect(run(changed, subscription(changed, "2026-02", { amount: 700 }), 3).map((p) => p.final)).toEqual([
      700, 700, 700,
    ]);
  });

  it("ends after its end period", () => {
    const monthly = plan();
    expect(run(monthly, subscription(monthly, "2026-02", { endPeriod: "2026-04" }), 12)).toHaveLength(3);
  });

  it("refuses a start period whose charge is already due", () => {
    const monthly = plan({ debitDay: 5 });
    expect(() => firstScheduleOf("2026-01", monthly, rules, created)).toThrow(RequestRefusal);
    expect(firstScheduleOf("2026-02", monthly, rules, created)).toEqual({ period: "2026-02", debitDate: "2026-02-05" });
  });

  it("pauses, and resumes from the first period not yet due", () => {
    const monthly = plan({ debitDay: 5 });
    const paused = pauseSubscription(subscription(monthly, "2026-02"), created);
    expect(paused.status).toBe("paused");
    const resumed = resumeSubscription(paused, monthly, rules, new Date("2026-04-10T00:00:00Z"));
    expect([resumed.status, resumed.nextPeriod, resumed.nextDebitDate]).toEqual(["active", "2026-05", "2026-05-07"]);
    expect(() => resumeSubscription(cancelSubscription(paused, false, created), monthly, rules, created)).toThrow(
      RequestRefusal,
    );
  });

  it("cancels now, or at the end of the period last charged", () => {
    const monthly = plan();
    const fresh = subscription(monthly, "2026-02");
    expect(cancelSubscription(fresh, true, created)).toMatchObject({ status: "cancelled", endReason: "cancelled" });
    const charged = { ...fresh, lastPeriod: "2026-02", nextPeriod: "2026-03" };
    const atEnd = cancelSubscription(charged, true, created);
    expect(atEnd).toMatchObject({ status: "active", endPeriod: "2026-02", cancelAtPeriodEnd: true });
    expect(decideDuePeriod(atEnd, monthly, rules, created)).toEqual({ kind: "end", reason: "end_period" });
    expect(cancelSubscription(charged, false, created)).toMatchObject({ status: "cancelled", nextPeriod: null });
  });
});

describe("合算 (carry-over)", () => {
  const carrying = plan({
    debitDay: 5,
    dunning: { action: "carry_over", retryAfterDays: 5, maxAttempts: 2, cancelOnGiveUp: false },
  });
  const decide = (attempt: number, errorType = ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS) =>
    decideAfterFailure({
      dunning: carrying.dunning,
      errorType,
      attempt,
      failedDebitDate: "2026-02-05",
      rules,
      now: created,
    });

  /** February's 1,000円 failed for 資金不足 and is carried. */
  const owingFebruary = () =>
    afterFailedAttempt(subscription(carrying, "2026-02"), "2026-02", 1000, decide(1), carrying.dunning, created);

  it("carries a 資金不足 failure as the next attempt, within max_attempts, never another failure", () => {
    expect(decide(1)).toEqual({ kind: "carry", attempt: 2 });
    expect(decide(2)).toEqual({ kind: "give_up", reason: "attempts_exhausted" });
    expect(decide(1, ErrorType.PAYMENT_CHARGE_REJECTED)).toEqual({ kind: "give_up", reason: "not_retryable" });
  });

  it("adds the carried amount to the next period's debit, and a free period still debits it", () => {
    const owing = owingFebruary();
    expect([owing.status, owing.pastDueReason, owing.carry]).toEqual([
      "past_due",
      "carried_over",
      [{ period: "2026-02", attempt: 2, amount: 1000 }],
    ]);
    const due = decideDuePeriod(owing, carrying, rules, created);
    if (due.kind !== "charge") throw new Error("not charged");
    expect([due.debit, debitAmountOf(due.period)]).toEqual([true, 2000]);
    const free = plan({ ...carrying, discount: { kind: "percent", percent: 100, periods: 1 } });
    const freeDue = decideDuePeriod(owing, free, rules, created);
    if (freeDue.kind !== "charge") throw new Error("not charged");
    expect([freeDue.debit, debitAmountOf(freeDue.period)]).toEqual([true, 1000]);
  });

  it("stays past due when a later period is paid while an amount is still carried", () => {
    const owing = owingFebruary();
    expect(afterPaidAttempt(owing, "2026-03", created)).toBe(owing);
    expect(afterPaidAttempt({ ...owing, carry: [] }, "2026-03", created).status).toBe("active");
  });
});
