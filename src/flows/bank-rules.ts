import type { Config } from "../config.js";
import { bankCalendar, type BankCalendar } from "../domain/bank-calendar.js";
import type { BankRules } from "../domain/bank-cutoff.js";
import { japaneseNationalHolidays } from "../ports/national-holidays.js";
import { bankProfileOf } from "../domain/bank-profile.js";
import { bankCodeOfCustomer } from "../storage/bank-accounts.js";
import type { Tx } from "../storage/transactor.js";

const calendars = new WeakMap<Config, BankCalendar>();

/** The business-day calendar: national holidays plus BANK_EXTRA_HOLIDAYS (built once per config). */
export function calendarOf(config: Config): BankCalendar {
  let calendar = calendars.get(config);
  if (!calendar)
    calendars.set(config, (calendar = bankCalendar([...japaneseNationalHolidays, ...config.bankExtraHolidays])));
  return calendar;
}

/** The rules of the bank a customer's account is at (the default bank when none is linked). */
export async function bankRulesOfCustomer(db: Tx, config: Config, customerId: string | null): Promise<BankRules> {
  const bankCode = customerId ? await bankCodeOfCustomer(db, customerId) : undefined;
  return { profile: bankProfileOf(bankCode), calendar: calendarOf(config) };
}
