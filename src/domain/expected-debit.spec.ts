import { describe, expect, it } from "vitest";
import { debitCalendarOf } from "./expected-debit.js";
import type { PlanRecord } from "./plan.js";

const plan: PlanRecord = {
  id: "pln-1",
  merchantId: "mer-1",
  name: "月謝",
  intervalUnit: "month",
  intervalCount: 1,
  debitDay: 5,
  firstPeriod: "full",
  discount: { kind: "percent", percent: 100, periods: 1 },
  dunning: { action: "carry_over", retryAfterDays: 5, maxAttempts: 2, cancelOnGiveUp: false },
  noticeDays: 3,
  prices: [{ version: 1, amount: 8000, fromPeriod: null, createdAt: new Date(0) }],
  metadata: {},
  createdAt: new Date(0),
  updatedAt: new Date(0),
};
const group = (changes: Partial<Parameters<typeof debitCalendarOf>[0][number]>) => ({
  planId: plan.id,
  status: "active" as const,
  amount: null,
  startPeriod: "2026-02",
  endPeriod: null,
  nextPeriod: "2026-03",
  nextDebitDate: "2026-03-05",
  carry: [],
  count: 1,
  ...changes,
});

describe("debitCalendarOf", () => {
  it("adds what each debit carries (合算) to the day's total, and says how much of it is carried", () => {
    const days = debitCalendarOf(
      [
        group({ count: 3 }),
        group({ status: "past_due", count: 2, carry: [{ period: "2026-02", attempt: 2, amount: 4000 }] }),
      ],
      new Map([[plan.id, plan]]),
    );
    expect(days).toEqual([
      { debitDate: "2026-03-05", subscriptions: 5, amount: 5 * 8000 + 2 * 4000, carriedAmount: 8000 },
    ]);
  });

  it("counts a free period's debit when it carries an amount, and leaves out one that debits nothing", () => {
    const free = { nextPeriod: "2026-02", nextDebitDate: "2026-02-05" };
    const days = debitCalendarOf(
      [group({ ...free, count: 4 }), group({ ...free, carry: [{ period: "2026-01", attempt: 2, amount: 3000 }] })],
      new Map([[plan.id, plan]]),
    );
    expect(days).toEqual([{ debitDate: "2026-02-05", subscriptions: 1, amount: 3000, carriedAmount: 3000 }]);
  });
});
