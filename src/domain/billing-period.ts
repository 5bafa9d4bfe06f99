import type { BankCalendar } from "./bank-calendar.js";
import type { JstDate } from "./jst.js";

/**
 * A billing period of a plan, named by the month of its debit day: "YYYY-MM"
 * (docs/guide/recurring-billing.md#periods-and-debit-dates). Pure arithmetic on months.
 */
export type BillingPeriod = string;

/** A plan's debit day: 1–28, or 末日 (the month's last day). */
export type DebitDay = number | "last";

const periodPattern = /^\d{4}-(0[1-9]|1[0-2])$/;

export function isBillingPeriod(text: string): boolean {
  return periodPattern.test(text);
}

/** Months since year 0: periods become numbers to add and compare. */
function monthIndexOf(period: BillingPeriod): number {
  return Number(period.slice(0, 4)) * 12 + Number(period.slice(5, 7)) - 1;
}

function periodOfIndex(index: number): BillingPeriod {
  return `${String(Math.floor(index / 12)).padStart(4, "0")}-${String((index % 12) + 1).padStart(2, "0")}`;
}

/** @example addMonths("2026-11", 3) // "2027-02" */
export function addMonths(period: BillingPeriod, months: number): BillingPeriod {
  return periodOfIndex(monthIndexOf(period) + months);
}

/** Whole months from `from` to `to` (negative when `to` is earlier). */
export function monthsBetween(from: BillingPeriod, to: BillingPeriod): number {
  return monthIndexOf(to) - monthIndexOf(from);
}

/** The period a JST date falls in. */
export function periodOfDate(date: JstDate): BillingPeriod {
  return date.slice(0, 7);
}

/** The month's last day, leap Februaries included. */
export function lastDayOf(period: BillingPeriod): number {
  const [year, month] = period.split("-").map(Number);
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The calendar day a period is due on, before the bank calendar moves it: its debit day, or its last day (末日). */
export function nominalDebitDate(period: BillingPeriod, debitDay: DebitDay): JstDate {
  const day = debitDay === "last" ? lastDayOf(period) : debitDay;
  return `${period}-${String(day).padStart(2, "0")}`;
}

/**
 * The debit date of a period: its nominal day, or the next bank business day when that is a
 * holiday, a weekend or the year-end closing (so 末日 of December is debited early in January).
 *
 * @example debitDateOfPeriod("2026-01", "last", calendar) // "2026-02-02" (1/31 is a Saturday)
 */
export function debitDateOfPeriod(period: BillingPeriod, debitDay: DebitDay, calendar: BankCalendar): JstDate {
  return calendar.businessDayFrom(nominalDebitDate(period, debitDay));
}
