import { addDays, weekdayOf, type JstDate } from "./jst.js";

/**
 * Japan's national holidays (国民の祝日, with substitute and citizens' holidays), as data: the
 * Cabinet Office's published table for 2025–2028. Extend it with BANK_EXTRA_HOLIDAYS (config)
 * or by adding a year here; equinox days are announced a year ahead, so later years wait.
 */
export const japaneseNationalHolidays: readonly JstDate[] = Object.freeze([
  // 2025
  "2025-01-01",
  "2025-01-13",
  "2025-02-11",
  "2025-02-23",
  "2025-02-24",
  "2025-03-20",
  "2025-04-29",
  "2025-05-03",
  "2025-05-04",
  "2025-05-05",
  "2025-05-06",
  "2025-07-21",
  "2025-08-11",
  "2025-09-15",
  "2025-09-23",
  "2025-10-13",
  "2025-11-03",
  "2025-11-23",
  "2025-11-24",
  // 2026
  "2026-01-01",
  "2026-01-12",
  "2026-02-11",
  "2026-02-23",
  "2026-03-20",
  "2026-04-29",
  "2026-05-03",
  "2026-05-04",
  "2026-05-05",
  "2026-05-06",
  "2026-07-20",
  "2026-08-11",
  "2026-09-21",
  "2026-09-22",
  "2026-09-23",
  "2026-10-12",
  "2026-11-03",
  "2026-11-23",
  // 2027
  "2027-01-01",
  "2027-01-11",
  "2027-02-11",
  "2027-02-23",
  "2027-03-21",
  "2027-03-22",
  "2027-04-29",
  "2027-05-03",
  "2027-05-04",
  "2027-05-05",
  "2027-07-19",
  "2027-08-11",
  "2027-09-20",
  "2027-09-23",
  "2027-10-11",
  "2027-11-03",
  "2027-11-23",
  // 2028
  "2028-01-01",
  "2028-01-10",
  "2028-02-11",
  "2028-02-23",
  "2028-03-20",
  "2028-04-29",
  "2028-05-03",
  "2028-05-04",
  "2028-05-05",
  "2028-07-17",
  "2028-08-11",
  "2028-09-18",
  "2028-09-22",
  "2028-10-09",
  "2028-11-03",
  "2028-11-23",
]);

/** The banks' year-end closing (12/31–1/3): no business days, holiday or not. */
function isYearEndClosing(date: JstDate): boolean {
  const monthDay = date.slice(5);
  return monthDay === "12-31" || monthDay <= "01-03";
}

/** Bank business days: not a Saturday, Sunday, national holiday, extra holiday or 12/31–1/3. */
export interface BankCalendar {
  isBusinessDay(date: JstDate): boolean;
  /** The first business day strictly after `date`. */
  nextBusinessDay(date: JstDate): JstDate;
  /** `date` itself when it is a business day, else the next one. */
  businessDayFrom(date: JstDate): JstDate;
}

/**
 * The calendar with the national holiday table plus `extraHolidays` (a bank's own closing days).
 *
 * @example bankCalendar(["2026-12-30"]).nextBusinessDay("2026-12-29") // "2027-01-04"
 */
export function bankCalendar(extraHolidays: readonly JstDate[] = []): BankCalendar {
  const holidays = new Set([...japaneseNationalHolidays, ...extraHolidays]);
  const isBusinessDay = (date: JstDate) => {
    const weekday = weekdayOf(date);
    return weekday !== 0 && weekday !== 6 && !holidays.has(date) && !isYearEndClosing(date);
  };
  const nextBusinessDay = (date: JstDate) => {
    let next = addDays(date, 1);
    while (!isBusinessDay(next)) next = addDays(next, 1);
    return next;
  };
  return Object.freeze({
    isBusinessDay,
    nextBusinessDay,
    businessDayFrom: (date: JstDate) => (isBusinessDay(date) ? date : nextBusinessDay(date)),
  });
}
