import { describe, expect, it } from "vitest";
import {
  codeMatches,
  codeUnusableReason,
  hashOneTimeCode,
  newOneTimeCode,
  resendAvailableAt,
} from "./one-time-code.js";

describe("one-time codes", () => {
  const now = new Date("2025-01-01T00:00:00Z");
  const record = (overrides = {}) => ({
    id: "otc-1",
    codeHash: hashOneTimeCode("otc-1", "123456"),
    attempts: 0,
    expiresAt: new Date(now.getTime() + 600_000),
    usedAt: null,
    createdAt: now,
    ...overrides,
  });

  it("are six digits, matched by hash only", () => {
    expect(newOneTimeCode()).toMatch(/^[0-9]{6}$/);
    expect(codeMatches(record(), "123456")).toBe(true);
    expect(codeMatches(record(), "123457")).toBe(false);
    expect(hashOneTimeCode("otc-2", "123456")).not.toBe(record().codeHash);
  });

  it("stop being usable when used, expired or out of attempts", () => {
    expect(codeUnusableReason(record(), now)).toBeUndefined();
    expect(codeUnusableReason(record({ usedAt: now }), now)).toContain("used");
    expect(codeUnusableReason(record(), new Date(now.getTime() + 600_000))).toContain("expired");
    expect(codeUnusableReason(record({ attempts: 5 }), now)).toContain("attempts");
  });

  it("can be resent 30 seconds after the last one", () => {
    expect(resendAvailableAt(undefined, now)).toEqual(now);
    expect(resendAvailableAt(now, new Date(now.getTime() + 10_000)).getTime()).toBe(now.getTime() + 30_000);
  });
});
