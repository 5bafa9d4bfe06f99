import { describe, expect, it } from "vitest";
import { bankCalendar, japaneseNationalHolidays } from "./bank-calendar.js";

describe("bankCalendar", () => {
  const calendar = bankCalendar();

  it("has no business on weekends, national holidays and 12/31–1/3", () => {
    expect(calendar.isBusinessDay("2026-03-13")).toBe(true); // Friday
    expect(calendar.isBusinessDay("2026-03-14")).toBe(false); // Saturday
    expect(calendar.isBusinessDay("2026-03-15")).toBe(false); // Sunday
    expect(calendar.isBusinessDay("2026-03-20")).toBe(false); // Vernal Equinox Day
    expect(calendar.isBusinessDay("2026-05-06")).toBe(false); // substitute holiday
    expect(calendar.isBusinessDay("2026-09-22")).toBe(false); // citizens' holiday
    for (const date of ["2026-12-31", "2027-01-01", "2027-01-02", "2027-01-03"])
      expect(calendar.isBusinessDay(date)).toBe(false);
    expect(calendar.isBusinessDay("2026-12-30")).toBe(true);
  });

  it("finds the next business day over weekends, holidays and the year end", () => {
    expect(calendar.nextBusinessDay("2026-03-13")).toBe("2026-03-16");
    expect(calendar.nextBusinessDay("2026-03-19")).toBe("2026-03-23");
    expect(calendar.nextBusinessDay("2026-04-30")).toBe("2026-05-01");
    expect(calendar.nextBusinessDay("2026-05-01")).toBe("2026-05-07");
    expect(calendar.nextBusinessDay("2026-12-30")).toBe("2027-01-04");
    expect(calendar.businessDayFrom("2026-03-13")).toBe("2026-03-13");
    expect(calendar.businessDayFrom("2026-03-14")).toBe("2026-03-16");
  });

  it("takes extra holidays as data", () => {
    expect(bankCalendar(["2026-03-16"]).nextBusinessDay("2026-03-13")).toBe("2026-03-17");
  });

  it("lists each holiday once, in order", () => {
    expect([...japaneseNationalHolidays].sort()).toEqual(japaneseNationalHolidays);
    expect(new Set(japaneseNationalHolidays).size).toBe(japaneseNationalHolidays.length);
  });
});
