import { describe, expect, it } from "vitest";
import { type PlanFormValues, planFormProblems } from "./plan-form.js";

const valid: PlanFormValues = {
  name: "月額会費",
  amount: 3300,
  intervalUnit: "month",
  intervalCount: 1,
  debitDay: 27,
  discount: "none",
  discountValue: Number.NaN,
  discountPeriods: Number.NaN,
  dunning: "stop",
  retryAfterDays: Number.NaN,
  maxAttempts: Number.NaN,
  noticeDays: 3,
};
const fields = (changes: Partial<PlanFormValues>) => planFormProblems({ ...valid, ...changes }).map((p) => p.rule);

describe("planFormProblems", () => {
  it("accepts a plain monthly plan, and ignores the settings of what is not chosen", () => {
    expect(fields({})).toEqual([]);
    expect(fields({ debitDay: 0, noticeDays: 0 })).toEqual([]);
  });

  it("holds the interval to 1–12 months or 1–3 years", () => {
    expect(fields({ intervalCount: 12 })).toEqual([]);
    expect(fields({ intervalCount: 13 })).toEqual(["intervalCount.month"]);
    expect(fields({ intervalUnit: "year", intervalCount: 3 })).toEqual([]);
    expect(fields({ intervalUnit: "year", intervalCount: 4 })).toEqual(["intervalCount.year"]);
  });

  it("checks a discount's value and periods only when there is one", () => {
    expect(fields({ discount: "percent", discountValue: 100, discountPeriods: 120 })).toEqual([]);
    expect(fields({ discount: "percent", discountValue: 101, discountPeriods: 121 })).toEqual([
      "discountValue.percent",
      "discountPeriods",
    ]);
    expect(fields({ discount: "amount", discountValue: 500, discountPeriods: 3 })).toEqual([]);
    expect(fields({ discount: "amount", discountValue: 0, discountPeriods: 1 })).toEqual(["discountValue.amount"]);
  });

  it("checks the re-debit days with re-debits, the attempts with re-debits or 合算", () => {
    expect(fields({ dunning: "retry", retryAfterDays: 5, maxAttempts: 2 })).toEqual([]);
    expect(fields({ dunning: "retry", retryAfterDays: 21, maxAttempts: 5 })).toEqual(["retryAfterDays", "maxAttempts"]);
    expect(fields({ dunning: "carry_over", retryAfterDays: Number.NaN, maxAttempts: 4 })).toEqual([]);
    expect(fields({ dunning: "carry_over", maxAttempts: 0 })).toEqual(["maxAttempts"]);
  });

  it("refuses a blank name, an amount out of bounds, a debit day of 29 and notices 15 days ahead", () => {
    expect(fields({ name: " ", amount: 10_000_001, debitDay: 29, noticeDays: 15 })).toEqual([
      "name",
      "amount",
      "debitDay",
      "noticeDays",
    ]);
  });
});
