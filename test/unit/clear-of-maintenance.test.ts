import { describe, expect, it } from "vitest";
import { msClearOfMaintenance } from "../helpers/clear-of-maintenance.js";

describe("a test server's clock clear of the simulated banks' maintenance", () => {
  const minutes = (iso: string) => msClearOfMaintenance(new Date(iso)) / 60_000;

  it("passes the daily 23:55–00:05 JST window, met within 15 minutes, to 00:10 JST", () => {
    expect(minutes("2026-11-28T14:39:00Z")).toBe(0); // 23:39 JST
    expect(minutes("2026-11-28T14:40:00Z")).toBe(30); // 23:40 JST
    expect(minutes("2026-11-28T14:51:00Z")).toBe(19); // 23:51 JST: the window opens and closes within 15 minutes
    expect(minutes("2026-11-28T14:58:00Z")).toBe(12); // 23:58 JST
    expect(minutes("2026-11-28T15:04:00Z")).toBe(6); // 00:04 JST
    expect(minutes("2026-11-28T15:05:00Z")).toBe(0); // 00:05 JST: over
    expect(minutes("2026-11-28T03:00:00Z")).toBe(0); // 12:00 JST
  });

  it("passes the Sunday night before the 1st and 3rd Mondays (9902) and the 2nd Saturday night (9903)", () => {
    // Sunday 6 December 2026, 01:00 JST Monday the 7th (the 1st Monday): open until 06:00 JST.
    expect(minutes("2026-12-06T16:00:00Z")).toBe(5 * 60 + 5);
    // Sunday 29 November 2026: Monday the 30th is the 5th Monday, no window (the daily one aside).
    expect(minutes("2026-11-29T16:00:00Z")).toBe(0);
    // Saturday 12 December 2026 (the 2nd), 20:50 JST: the window opens at 21:00, until 07:00 JST.
    expect(minutes("2026-12-12T11:50:00Z")).toBe(10 * 60 + 10 + 5);
  });
});
