import { describe, expect, it } from "vitest";
import { type MoneySnapshot, subscriptionViolations } from "./invariants.js";

const empty: MoneySnapshot = {
  charges: [],
  refunds: [],
  asyncRequests: [],
  ledger: [],
  contracts: [],
  events: [],
  pendingJobs: [],
  links: [],
};

describe("one-charge-per-period", () => {
  const period = { subscriptionId: "sub-1", period: "2026-02", finalAmount: 1000, chargeId: "trx-1" };
  const attempt = { subscriptionId: "sub-1", period: "2026-02", attempt: 1, chargeId: "trx-1" };

  it("accepts a period with its charge, and a re-debit as attempt 2", () => {
    const snapshot = {
      ...empty,
      subscriptionPeriods: [period],
      subscriptionAttempts: [attempt, { ...attempt, attempt: 2, chargeId: "trx-2" }],
      subscriptionCharges: [
        { chargeId: "trx-1", subscriptionId: "sub-1" },
        { chargeId: "trx-2", subscriptionId: "sub-1" },
      ],
      subscriptionLastPeriods: [{ subscriptionId: "sub-1", lastPeriod: "2026-02" }],
    };
    expect(subscriptionViolations(snapshot)).toEqual([]);
  });

  it("finds a period charged twice, a period missing its charge, and a last period not recorded", () => {
    const rules = subscriptionViolations({
      ...empty,
      subscriptionPeriods: [period, { ...period, period: "2026-03", chargeId: null }],
      subscriptionAttempts: [attempt],
      subscriptionCharges: [
        { chargeId: "trx-1", subscriptionId: "sub-1" },
        { chargeId: "trx-9", subscriptionId: "sub-1" },
      ],
      subscriptionLastPeriods: [{ subscriptionId: "sub-1", lastPeriod: "2026-04" }],
    }).map((v) => v.subject);
    expect(rules).toEqual(["sub-1/2026-03", "trx-9", "sub-1/2026-04"]);
  });
});
