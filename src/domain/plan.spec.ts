import { describe, expect, it } from "vitest";
import { intervalMonthsOf, periodAmounts, priceOf, type PlanPrice } from "./plan.js";

const at = new Date("2026-01-01T00:00:00Z");
const prices: PlanPrice[] = [
  { version: 1, amount: 1000, fromPeriod: null, createdAt: at },
  { version: 2, amount: 1200, fromPeriod: "2026-07", createdAt: at },
  { version: 3, amount: 1500, fromPeriod: "2027-01", createdAt: at },
];

describe("plans", () => {
  it("charges each period at the latest version that applies to it", () => {
    expect(priceOf(prices, "2026-06").amount).toBe(1000);
    expect(priceOf(prices, "2026-07").amount).toBe(1200);
    expect(priceOf(prices, "2026-12").version).toBe(2);
    expect(priceOf(prices, "2027-03").amount).toBe(1500);
  });

  it("lets a later version from an earlier period win over an older one", () => {
    const back = [...prices, { version: 4, amount: 900, fromPeriod: "2026-10", createdAt: at }];
    expect(priceOf(back, "2026-09").amount).toBe(1200);
    expect(priceOf(back, "2027-05").amount).toBe(900);
  });

  it("reads yearly intervals in months", () => {
    expect(intervalMonthsOf({ intervalUnit: "month", intervalCount: 3 })).toBe(3);
    expect(intervalMonthsOf({ intervalUnit: "year", intervalCount: 1 })).toBe(12);
  });

  it("discounts the first K charged periods: 3か月半額, 初月無料, a fixed amount", () => {
    const half = { kind: "percent", percent: 50, periods: 3 } as const;
    expect(periodAmounts(1001, half, 1)).toEqual({ initialAmount: 1001, discount: 500, finalAmount: 501 });
    expect(periodAmounts(1001, half, 3).discount).toBe(500);
    expect(periodAmounts(1001, half, 4)).toEqual({ initialAmount: 1001, discount: 0, finalAmount: 1001 });
    const free = { kind: "percent", percent: 100, periods: 1 } as const;
    expect(periodAmounts(980, free, 1).finalAmount).toBe(0);
    const off = { kind: "amount", amount: 5000, periods: 2 } as const;
    expect(periodAmounts(3000, off, 2)).toEqual({ initialAmount: 3000, discount: 3000, finalAmount: 0 });
    expect(periodAmounts(3000, null, 1).discount).toBe(0);
  });
});
