import { describe, expect, it } from "vitest";
import { bankCalendar } from "./bank-calendar.js";
import { japaneseNationalHolidays } from "../ports/national-holidays.js";

describe("bankCalendar", () => {
  const calendar = bankCalendar(japaneseNationalHolidays);

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

  // Checked against the Cabinet Office's rules (Happy Monday days, substitute and citizens'
  // holidays) and the National Astronomical Observatory's equinox predictions.
  it.each([
    ["2029-01-08", "成人の日, second Monday of January"],
    ["2029-04-30", "substitute for 昭和の日 on a Sunday"],
    ["2030-01-14", "成人の日"],
    ["2030-05-06", "substitute for こどもの日 on a Sunday"],
    ["2031-09-23", "秋分の日"],
    ["2032-09-20", "敬老の日, third Monday of September"],
    ["2032-09-21", "citizens' holiday between 敬老の日 and 秋分の日"],
    ["2032-09-22", "秋分の日"],
    ["2033-03-21", "substitute for 春分の日 on a Sunday"],
    ["2034-07-17", "海の日, third Monday of July"],
    ["2035-03-21", "春分の日"],
    ["2035-10-08", "スポーツの日, second Monday of October"],
  ])("closes on %s (%s)", (date) => {
    expect(calendar.isBusinessDay(date)).toBe(false);
  });

  it("keeps ordinary weekdays of 2029–2035 open, and the year end closed", () => {
    for (const date of ["2029-01-09", "2030-01-15", "2031-09-24", "2032-09-23", "2035-03-22"])
      expect(calendar.isBusinessDay(date)).toBe(true);
    expect(calendar.nextBusinessDay("2032-09-17")).toBe("2032-09-23");
    expect(calendar.nextBusinessDay("2034-12-29")).toBe("2035-01-04");
  });

  it("takes extra holidays as data", () => {
    expect(bankCalendar([...japaneseNationalHolidays, "2026-03-16"]).nextBusinessDay("2026-03-13")).toBe("2026-03-17");
    expect(bankCalendar([]).isBusinessDay("2030-01-14")).toBe(true);
  });
});
