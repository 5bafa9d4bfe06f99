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

/**
 * With a merchant-chosen monthly debit day (1–28): that day of the month (the next business day
 * when it is not one), the first such date no earlier than `debitDateOf` allows.
 *
 * @example monthlyDebitDateOf(new Date("2026-11-24T01:00:00Z"), 27, …) // "2026-11-27"
 */
export function monthlyDebitDateOf(
  acceptedAt: Date,
  debitDay: number,
  timetable: ZenginTimetable,
  calendar: BankCalendar,
): JstDate {
  const earliest = debitDateOf(acceptedAt, timetable, calendar);
  let month = earliest.slice(0, 7);
  for (;;) {
    const candidate = calendar.businessDayFrom(`${month}-${String(debitDay).padStart(2, "0")}`);
    if (candidate >= earliest) return candidate;
    const [year, m] = month.split("-").map(Number);
    month = m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, "0")}`;
  }
}

/** When the results of a debit date are overdue: the end of its deadline's business day (JST). */
export function resultDeadlineOf(debitDate: JstDate, timetable: ZenginTimetable, calendar: BankCalendar): Date {
  let date = debitDate;
  for (let day = 0; day < timetable.resultDeadlineDays; day++) date = calendar.nextBusinessDay(date);
  return jstInstant(calendar.nextBusinessDay(date));
}
