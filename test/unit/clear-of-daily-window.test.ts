import { describe, expect, it } from "vitest";
import { msClearOfDailyWindow } from "../helpers/clear-of-daily-window.js";

describe("a test server's clock clear of the daily maintenance window", () => {
  it("moves 23:40–00:10 JST on to 00:10 JST, and leaves every other time alone", () => {
    const at = (iso: string) => msClearOfDailyWindow(new Date(iso)) / 60_000;
    expect(at("2026-11-28T14:39:00Z")).toBe(0); // 23:39 JST
    expect(at("2026-11-28T14:40:00Z")).toBe(30); // 23:40 JST
    expect(at("2026-11-28T14:58:00Z")).toBe(12); // 23:58 JST
    expect(at("2026-11-28T15:05:00Z")).toBe(5); // 00:05 JST
    expect(at("2026-11-28T15:10:00Z")).toBe(0); // 00:10 JST
    expect(at("2026-11-28T03:00:00Z")).toBe(0); // 12:00 JST
  });
});
