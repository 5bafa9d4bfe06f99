import { addDays, weekdayOf, type JstDate } from "./jst.js";

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
 * The calendar closed on `holidays` (the national holidays, given by the caller from
 * src/ports/national-holidays.ts, plus a bank's own closing days), weekends and 12/31–1/3.
 *
 * @example bankCalendar(["2026-12-30"]).nextBusinessDay("2026-12-29") // "2027-01-04"
 */
export function bankCalendar(holidays: Iterable<JstDate>): BankCalendar {
  const closed = new Set(holidays);
  // Answers kept per date: a debit date asks the same few dates once per subscription, and
  // each answer parses dates (a few hundred dates a year, so the maps stay small).
  const businessDays = new Map<JstDate, boolean>();
  const nextOf = new Map<JstDate, JstDate>();
  const isBusinessDay = (date: JstDate) => {
    let open = businessDays.get(date);
    if (open === undefined) {
      const weekday = weekdayOf(date);
      open = weekday !== 0 && weekday !== 6 && !closed.has(date) && !isYearEndClosing(date);
      businessDays.set(date, open);
    }
    return open;
  };
  const nextBusinessDay = (date: JstDate) => {
    let next = nextOf.get(date);
    if (next === undefined) {
      next = addDays(date, 1);
      while (!isBusinessDay(next)) next = addDays(next, 1);
      nextOf.set(date, next);
    }
    return next;
  };
  return Object.freeze({
    isBusinessDay,
    nextBusinessDay,
    businessDayFrom: (date: JstDate) => (isBusinessDay(date) ? date : nextBusinessDay(date)),
  });
}
