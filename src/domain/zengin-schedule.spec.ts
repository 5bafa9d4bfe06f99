import { describe, expect, it } from "vitest";
import { bankCalendar } from "./bank-calendar.js";
import { japaneseNationalHolidays } from "../ports/national-holidays.js";
import { debitDateOf, monthlyDebitDateOf, fileCutoffOf, resultDeadlineOf } from "./zengin-schedule.js";

const calendar = bankCalendar(japaneseNationalHolidays);
const timetable = { leadDays: 2, fileCutoff: "15:00", resultDeadlineDays: 5 };

describe("the Zengin timetable", () => {
  it("debits two business days after acceptance; the file is due at 15:00 JST the business day before", () => {
    // Tuesday 2026-11-24 10:00 JST.
    expect(debitDateOf(new Date("2026-11-24T01:00:00Z"), timetable, calendar)).toBe("2026-11-26");
    expect(fileCutoffOf("2026-11-26", timetable, calendar).toISOString()).toBe("2026-11-25T06:00:00.000Z");
  });

  it("skips weekends and holidays (2026-11-23 is 勤労感謝の日)", () => {
    // Friday 2026-11-20 → Tuesday 24th (Monday is a holiday) → Wednesday 25th.
    expect(debitDateOf(new Date("2026-11-20T01:00:00Z"), timetable, calendar)).toBe("2026-11-25");
    // The file for Tuesday 24th is due on Friday 20th.
    expect(fileCutoffOf("2026-11-24", timetable, calendar).toISOString()).toBe("2026-11-20T06:00:00.000Z");
  });

  it("moves to a later debit date when the cutoff has already passed", () => {
    // One lead day, accepted at 16:00 JST Tuesday: Wednesday's file was due at 15:00.
    expect(debitDateOf(new Date("2026-11-24T07:00:00Z"), { ...timetable, leadDays: 1 }, calendar)).toBe("2026-11-26");
    expect(debitDateOf(new Date("2026-11-24T05:00:00Z"), { ...timetable, leadDays: 1 }, calendar)).toBe("2026-11-25");
  });

  it("debits on the merchant's monthly day when it has one, never before the lead time allows", () => {
    const at = new Date("2026-11-24T01:00:00Z");
    expect(monthlyDebitDateOf(at, 27, timetable, calendar)).toBe("2026-11-27");
    // The 26th is the earliest possible day: the 25th moves to next month.
    expect(monthlyDebitDateOf(at, 25, timetable, calendar)).toBe("2026-12-25");
    // 2026-11-28 is a Saturday: the Monday after.
    expect(monthlyDebitDateOf(at, 28, timetable, calendar)).toBe("2026-11-30");
    // December's 26th is a Saturday, January's 1–3 are closed: across the year end.
    expect(monthlyDebitDateOf(new Date("2026-12-28T01:00:00Z"), 2, timetable, calendar)).toBe("2027-01-04");
  });

  it("calls results overdue after the deadline's business day", () => {
    // Thursday 26th + 5 business days = Thursday 3 December; overdue from Friday 4th 00:00 JST.
    expect(resultDeadlineOf("2026-11-26", timetable, calendar).toISOString()).toBe("2026-12-03T15:00:00.000Z");
  });
});
