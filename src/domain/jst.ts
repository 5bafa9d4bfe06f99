import { daysMs, hoursMs } from "./duration.js";

/**
 * Japan Standard Time (UTC+9, no daylight saving): the banks' wall clock. Dates are plain
 * "YYYY-MM-DD" strings of the JST calendar; instants are Dates read from the injected clock.
 */
export const jstOffsetMs = hoursMs(9);
export const dayMs = daysMs(1);

/** A JST calendar date, "YYYY-MM-DD". */
export type JstDate = string;

/** The JST date an instant falls on. */
export function jstDateOf(at: Date): JstDate {
  return new Date(at.getTime() + jstOffsetMs).toISOString().slice(0, 10);
}

/** The instant of a JST wall time ("HH:MM") on a JST date. */
export function jstInstant(date: JstDate, time = "00:00"): Date {
  return new Date(Date.parse(`${date}T${time}:00Z`) - jstOffsetMs);
}

/** The JST date `days` later (or earlier). */
export function addDays(date: JstDate, days: number): JstDate {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);
}

/** 0 = Sunday … 6 = Saturday. */
export function weekdayOf(date: JstDate): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

/** Which occurrence of its weekday in its month a date is: 1 for the first Monday, 2 for the second… */
export function nthWeekdayInMonth(date: JstDate): number {
  return Math.ceil(Number(date.slice(8, 10)) / 7);
}

/** The JST midnight that starts an instant's JST day, and the one that starts its month. */
export function jstDayStart(at: Date): Date {
  return jstInstant(jstDateOf(at));
}

export function jstMonthStart(at: Date): Date {
  return jstInstant(`${jstDateOf(at).slice(0, 7)}-01`);
}

/** The instants that bound a JST month "YYYY-MM": [from, to). */
export function jstMonthRange(month: string): { from: Date; to: Date } {
  const [year, mon] = month.split("-").map(Number);
  const next = mon === 12 ? `${year + 1}-01` : `${year}-${String(mon + 1).padStart(2, "0")}`;
  return { from: jstInstant(`${month}-01`), to: jstInstant(`${next}-01`) };
}
