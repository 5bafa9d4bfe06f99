import holidayJp from "@holiday-jp/holiday_jp";
import type { JstDate } from "../domain/jst.js";

/**
 * Japan's national holidays (国民の祝日, with substitute and citizens' holidays) from the maintained
 * @holiday-jp/holiday_jp data (1970–2050; equinox days are the predicted ones until the Cabinet
 * Office announces them a year ahead: update the package, or add a changed date to BANK_EXTRA_HOLIDAYS).
 */
export const japaneseNationalHolidays: readonly JstDate[] = Object.freeze(Object.keys(holidayJp.holidays).sort());
