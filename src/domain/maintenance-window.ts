import { addDays, jstDateOf, jstInstant, nthWeekdayInMonth, weekdayOf, type JstDate } from "./jst.js";

/**
 * A bank's recurring maintenance window, as data. It hangs on an anchor day (every day, or the
 * n-th given weekday of the month) and runs from a JST time on that day or the day before to a
 * JST time on that day or the day after.
 *
 * @example // Sunday 23:55 to Monday 06:00 before the 1st and 3rd Mondays
 * { description: "…", anchor: { weekday: 1, nthInMonth: [1, 3] }, from: { dayOffset: -1, time: "23:55" }, to: { dayOffset: 0, time: "06:00" } }
 */
export interface MaintenanceWindow {
  readonly description: string;
  readonly anchor: "daily" | { readonly weekday: number; readonly nthInMonth: readonly number[] };
  readonly from: { readonly dayOffset: -1 | 0; readonly time: string };
  readonly to: { readonly dayOffset: 0 | 1; readonly time: string };
}

/** One occurrence of a window: [start, end). */
export interface MaintenancePeriod {
  readonly description: string;
  readonly start: Date;
  readonly end: Date;
}

function isAnchorDay(window: MaintenanceWindow, date: JstDate): boolean {
  if (window.anchor === "daily") return true;
  return weekdayOf(date) === window.anchor.weekday && window.anchor.nthInMonth.includes(nthWeekdayInMonth(date));
}

function periodOn(window: MaintenanceWindow, anchorDay: JstDate): MaintenancePeriod {
  return {
    description: window.description,
    start: jstInstant(addDays(anchorDay, window.from.dayOffset), window.from.time),
    end: jstInstant(addDays(anchorDay, window.to.dayOffset), window.to.time),
  };
}

/** The window occurrence `at` falls in, if any (anchors within a day either side can cover it). */
export function maintenanceAt(windows: readonly MaintenanceWindow[], at: Date): MaintenancePeriod | undefined {
  const today = jstDateOf(at);
  for (const window of windows) {
    for (const anchorDay of [addDays(today, -1), today, addDays(today, 1)]) {
      if (!isAnchorDay(window, anchorDay)) continue;
      const period = periodOn(window, anchorDay);
      if (period.start <= at && at < period.end) return period;
    }
  }
  return undefined;
}
