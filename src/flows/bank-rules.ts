import type { Config } from "../config.js";
import { bankCalendar, type BankCalendar } from "../domain/bank-calendar.js";
import type { BankRules } from "../domain/bank-cutoff.js";
import { bankProfileOf } from "../domain/bank-profile.js";
import type { Tx } from "../storage/transactor.js";

const calendars = new WeakMap<Config, BankCalendar>();

/** The business-day calendar: national holidays plus BANK_EXTRA_HOLIDAYS (built once per config). */
export function calendarOf(config: Config): BankCalendar {
  let calendar = calendars.get(config);
  if (!calendar) calendars.set(config, (calendar = bankCalendar(config.bankExtraHolidays)));
  return calendar;
}

/** The rules of the bank a customer's account is at (the default bank when none is linked). */
export async function bankRulesOfCustomer(db: Tx, config: Config, customerId: string | null): Promise<BankRules> {
  const account = customerId
    ? await db.selectFrom("bank_accounts").select("bank_code").where("customer_id", "=", customerId).executeTakeFirst()
    : undefined;
  return { profile: bankProfileOf(account?.bank_code), calendar: calendarOf(config) };
}
