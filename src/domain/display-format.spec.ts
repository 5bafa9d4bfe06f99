import { describe, expect, it } from "vitest";
import { formatJstDate, formatJstDateTime, formatYen } from "./display-format.js";

describe("how every screen writes amounts and times", () => {
  it("writes yen with one half-width symbol and thousands separators", () => {
    expect(formatYen(1200)).toBe("¥1,200");
    expect(formatYen(1_000_000n)).toBe("¥1,000,000");
    expect(formatYen(0)).toBe("¥0");
    expect(formatYen(-500)).toBe("-¥500");
  });

  it("writes instants in Japan time, whatever the time zone they were read in", () => {
    // 23:41 UTC on 11/27 is 08:41 on 11/28 in Japan: the merchant's day, not London's.
    expect(formatJstDateTime(new Date("2026-11-27T23:41:59.311Z"))).toBe("2026/11/28 08:41");
    expect(formatJstDate(new Date("2026-11-27T23:41:59.311Z"))).toBe("2026/11/28");
    expect(formatJstDate("2026-12-01")).toBe("2026/12/01");
  });
});
