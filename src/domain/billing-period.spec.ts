import { describe, expect, it } from "vitest";
import { bankCalendar } from "./bank-calendar.js";
import { japaneseNationalHolidays } from "../ports/national-holidays.js";
import {
  addMonths,
  debitDateOfPeriod,
  isBillingPeriod,
  lastDayOf,
  monthsBetween,
  nominalDebitDate,
  type DebitDay,
} from "./billing-period.js";

const calendar = bankCalendar(japaneseNationalHolidays);

function yearOf(first: string, debitDay: DebitDay, months = 12): string[] {
  return Array.from({ length: months }, (_, i) => debitDateOfPeriod(addMonths(first, i), debitDay, calendar));
}

describe("billing periods", () => {
  it("adds and counts months across year ends", () => {
    expect(addMonths("2026-11", 3)).toBe("2027-02");
    expect(addMonths("2027-01", -1)).toBe("2026-12");
    expect(addMonths("2026-01", 12)).toBe("2027-01");
    expect(monthsBetween("2026-11", "2027-02")).toBe(3);
    expect(monthsBetween("2027-02", "2026-11")).toBe(-3);
    expect(isBillingPeriod("2026-12")).toBe(true);
    expect(isBillingPeriod("2026-13")).toBe(false);
  });

  it("knows each month's last day, leap Februaries included", () => {
    expect(lastDayOf("2026-02")).toBe(28);
    expect(lastDayOf("2028-02")).toBe(29);
    expect(lastDayOf("2100-02")).toBe(28);
    expect(lastDayOf("2026-04")).toBe(30);
    expect(nominalDebitDate("2026-01", "last")).toBe("2026-01-31");
    expect(nominalDebitDate("2026-02", 5)).toBe("2026-02-05");
  });

  it("debits 末日 on the next business day: weekends, the year-end closing, February", () => {
    expect(yearOf("2026-01", "last")).toEqual([
      "2026-02-02", // 1/31 is a Saturday
      "2026-03-02", // 2/28 is a Saturday
      "2026-03-31",
      "2026-04-30",
      "2026-06-01", // 5/31 is a Sunday
      "2026-06-30",
      "2026-07-31",
      "2026-08-31",
      "2026-09-30",
      "2026-11-02", // 10/31 is a Saturday
      "2026-11-30",
      "2027-01-04", // 12/31–1/3 closed, then a Monday
    ]);
    expect(debitDateOfPeriod("2028-02", "last", calendar)).toBe("2028-02-29"); // leap year, a Tuesday
  });

  it("moves a fixed day over national holidays and Golden Week", () => {
    expect(yearOf("2026-01", 5)).toEqual([
      "2026-01-05",
      "2026-02-05",
      "2026-03-05",
      "2026-04-06", // 4/5 is a Sunday
      "2026-05-07", // 5/3–5/6 holidays (5/6 a substitute)
      "2026-06-05",
      "2026-07-06",
      "2026-08-05",
      "2026-09-07",
      "2026-10-05",
      "2026-11-05",
      "2026-12-07",
    ]);
    expect(yearOf("2026-09", 27, 4)).toEqual(["2026-09-28", "2026-10-27", "2026-11-27", "2026-12-28"]);
  });
});
