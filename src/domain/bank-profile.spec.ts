import { describe, expect, it } from "vitest";
import { bankProfileOf, defaultBankProfile, limitExceeded } from "./bank-profile.js";

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
