import { describe, expect, it } from "vitest";
import { backoffDelayMs, retryPolicyOf } from "./retry-policy.js";

describe("backoffDelayMs", () => {
  const policy = retryPolicyOf({ maxAttempts: 6, initialBackoffMs: 100, maxBackoffMs: 1000 });

  it("doubles the ceiling per retry and caps it", () => {
    const almostOne = () => 0.999999;
    expect([1, 2, 3, 4, 5].map((retry) => backoffDelayMs(policy, retry, almostOne))).toEqual([99, 199, 399, 799, 999]);
  });

  it("draws the wait uniformly below the ceiling (full jitter)", () => {
    expect(backoffDelayMs(policy, 3, () => 0)).toBe(0);
    expect(backoffDelayMs(policy, 3, () => 0.5)).toBe(200);
  });
});

describe("retryPolicyOf", () => {
  it("fills defaults and refuses nonsense", () => {
    expect(retryPolicyOf({ maxAttempts: undefined }).maxAttempts).toBe(4);
    expect(() => retryPolicyOf({ maxAttempts: 0 })).toThrow(RangeError);
    expect(() => retryPolicyOf({ initialBackoffMs: 500, maxBackoffMs: 100 })).toThrow(RangeError);
  });
});
