import { describe, expect, it } from "vitest";
import { newId, timePart } from "./ids.js";

describe("identifiers", () => {
  it("are the prefix and 26 Crockford base32 characters", () => {
    expect(newId("trx")).toMatch(/^trx-[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it("begin with their time, so later ids sort after earlier ones", () => {
    expect(timePart(0)).toBe("0000000000");
    expect(timePart(2 ** 48 - 1)).toBe("7zzzzzzzzz");
    const parts = [1_795_869_526_000, 1_795_869_526_001, 1_795_869_527_000, 1_800_000_000_000].map(timePart);
    expect([...parts].sort()).toEqual(parts);
    const before = timePart(Date.now());
    const time = newId("chg").slice(4, 14);
    expect(time >= before && time <= timePart(Date.now())).toBe(true);
  });

  it("differ within one millisecond by their 80 random bits", () => {
    const ids = Array.from({ length: 10_000 }, () => newId("mwh"));
    expect(new Set(ids.map((id) => id.slice(14))).size).toBe(ids.length);
  });
});
