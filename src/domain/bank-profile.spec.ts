import { describe, expect, it } from "vitest";
import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import {
  bankProfileOf,
  debitedSoFar,
  defaultBankProfile,
  limitExceeded,
  limitRefusal,
  noDebits,
  withDebit,
  withoutDebit,
} from "./bank-profile.js";

describe("bankProfileOf", () => {
  it("finds the simulated banks by code and gives every other code the default", () => {
    expect(bankProfileOf("9902").cutoff).toBe("18:00");
    expect(bankProfileOf("0005")).toBe(defaultBankProfile);
    expect(bankProfileOf(undefined)).toBe(defaultBankProfile);
  });
});

describe("limitExceeded", () => {
  const limits = { perPayment: 100_000, perDay: 100_000, perMonth: 150_000 };

  it("names the first limit a debit would break", () => {
    expect(limitExceeded(limits, 100_001, { today: 0, thisMonth: 0 })).toBe("perPayment");
    expect(limitExceeded(limits, 100_000, { today: 0, thisMonth: 0 })).toBeUndefined();
    expect(limitExceeded(limits, 1, { today: 100_000, thisMonth: 100_000 })).toBe("perDay");
    expect(limitExceeded(limits, 60_000, { today: 0, thisMonth: 100_000 })).toBe("perMonth");
  });

  it("treats 0 as no limit", () => {
    expect(
      limitExceeded(defaultBankProfile.limits, 10_000_000, { today: 10_000_000, thisMonth: 10_000_000 }),
    ).toBeUndefined();
  });
});

describe("debitedSoFar and withDebit", () => {
  it("keep the debits of today and of the month, days and months starting at 00:00 JST", () => {
    let totals = withDebit(noDebits, 1_000, new Date("2026-03-01T00:00:00.000Z"));
    totals = withDebit(totals, 2_000, new Date("2026-03-09T14:59:59.999Z")); // 23:59 JST on 9 March
    totals = withDebit(totals, 4_000, new Date("2026-03-09T15:00:00.000Z")); // 00:00 JST on 10 March
    expect(debitedSoFar(totals, new Date("2026-03-10T03:00:00Z"))).toEqual({ today: 4_000, thisMonth: 7_000 });
    // The next JST day starts today's sum afresh; the next JST month (1 April 00:00 JST) both.
    expect(debitedSoFar(totals, new Date("2026-03-10T15:00:00Z"))).toEqual({ today: 0, thisMonth: 7_000 });
    expect(debitedSoFar(totals, new Date("2026-03-31T15:00:00Z"))).toEqual({ today: 0, thisMonth: 0 });
    const april = withDebit(totals, 500, new Date("2026-03-31T15:00:00Z"));
    expect(debitedSoFar(april, new Date("2026-04-01T01:00:00Z"))).toEqual({ today: 500, thisMonth: 500 });
  });

  it("take a reversed debit off the day and month it counted in, and only those", () => {
    const tenth = new Date("2026-03-10T03:00:00Z");
    const totals = withDebit(withDebit(noDebits, 2_000, new Date("2026-03-05T03:00:00Z")), 4_000, tenth);
    expect(debitedSoFar(withoutDebit(totals, 4_000, tenth), tenth)).toEqual({ today: 0, thisMonth: 2_000 });
    expect(debitedSoFar(withoutDebit(totals, 2_000, new Date("2026-03-05T03:00:00Z")), tenth)).toEqual({
      today: 4_000,
      thisMonth: 4_000,
    });
    // A debit of last month no longer counts in this month's sums: nothing to take off.
    expect(withoutDebit(totals, 1_000, new Date("2026-02-20T03:00:00Z"))).toEqual(totals);
  });

  it("count nothing for an account never debited", () => {
    expect(debitedSoFar(noDebits, new Date("2026-03-10T03:00:00Z"))).toEqual({ today: 0, thisMonth: 0 });
  });
});

describe("limitRefusal", () => {
  it("refuses a debit over a limit with OVER_LIMIT, naming the bank and the limit, and lets one within pass", () => {
    const bank = bankProfileOf("9901");
    expect(bank.limits.perDay).toBe(100_000);
    const refusal = limitRefusal(bank, 30_000, { today: 80_000, thisMonth: 80_000 });
    expect(refusal?.errorType).toBe(ErrorType.PAYMENT_CHARGE_OVER_LIMIT);
    expect(refusal?.retryable).toBe(false);
    expect(refusal?.message).toContain("¥100,000 per day");
    expect(limitRefusal(bank, 20_000, { today: 80_000, thisMonth: 80_000 })).toBeUndefined();
  });
});
