import type { BankCalendar } from "./bank-calendar.js";
import { type JstDate, jstDateOf, jstInstant } from "./jst.js";

/**
 * When a charge accepted for the Zengin file exchange is debited and when its file is due
 * (docs/operations/zengin.md, "The cycle"). Pure: the time and the bank calendar are passed in.
 */
export interface ZenginTimetable {
  /** Business days between acceptance and the debit date (ZENGIN_LEAD_DAYS). */
  readonly leadDays: number;
  /** JST wall time "HH:MM" on the business day before the debit date when its file is written (ZENGIN_FILE_CUTOFF). */
  readonly fileCutoff: string;
  /** Business days after the debit date by which the result must have come (ZENGIN_RESULT_DEADLINE_DAYS). */
  readonly resultDeadlineDays: number;
}

/** The file cutoff of a debit date: its wall time on the business day before. */
export function fileCutoffOf(debitDate: JstDate, timetable: ZenginTimetable, calendar: BankCalendar): Date {
  let before = debitDate;
  do before = jstDateOf(new Date(jstInstant(before).getTime() - 1));
  while (!calendar.isBusinessDay(before));
  return jstInstant(before, timetable.fileCutoff);
}

/**
 * The debit date of a charge accepted at `acceptedAt`: the first bank business day at least
 * `leadDays` business days later whose file cutoff has not passed.
 *
 * @example debitDateOf(new Date("2026-11-24T01:00:00Z"), { leadDays: 2, … }, calendar) // "2026-11-26"
 */
export function debitDateOf(acceptedAt: Date, timetable: ZenginTimetable, calendar: BankCalendar): JstDate {
  let date = jstDateOf(acceptedAt);
  for (let day = 0; day < Math.max(1, timetable.leadDays); day++) date = calendar.nextBusinessDay(date);
  while (fileCutoffOf(date, timetable, calendar) < acceptedAt) date = calendar.nextBusinessDay(date);
  return date;
}

/** When the results of a debit date are overdue: the end of its deadline's business day (JST). */
export function resultDeadlineOf(debitDate: JstDate, timetable: ZenginTimetable, calendar: BankCalendar): Date {
  let date = debitDate;
  for (let day = 0; day < timetable.resultDeadlineDays; day++) date = calendar.nextBusinessDay(date);
  return jstInstant(calendar.nextBusinessDay(date));
}
