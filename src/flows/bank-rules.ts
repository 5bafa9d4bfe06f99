import type { Config } from "../config.js";
import { bankCalendar, type BankCalendar } from "../domain/bank-calendar.js";
import type { BankRules } from "../domain/bank-cutoff.js";
import { japaneseNationalHolidays } from "../ports/national-holidays.js";
import { bankProfileOf } from "../domain/bank-profile.js";
import { bankCodeOfAccount } from "../storage/bank-accounts.js";
import type { Tx } from "../storage/transactor.js";
import type { BillingRules } from "../domain/subscription.js";
import { fileCutoffOf } from "../domain/zengin-schedule.js";
import { jstInstant } from "../domain/jst.js";
import { timetableOf } from "../ports/zengin-bank.js";

const calendars = new WeakMap<Config, BankCalendar>();

/** The business-day calendar: national holidays plus BANK_EXTRA_HOLIDAYS (built once per config). */
export function calendarOf(config: Config): BankCalendar {
  let calendar = calendars.get(config);
  if (!calendar)
    calendars.set(config, (calendar = bankCalendar([...japaneseNationalHolidays, ...config.bankExtraHolidays])));
  return calendar;
}

/** The rules of the bank an account is at (a charge's: the default bank when it has none). */
export async function bankRulesOfAccount(db: Tx, config: Config, accountId: string | null): Promise<BankRules> {
  const bankCode = accountId ? await bankCodeOfAccount(db, accountId) : undefined;
  return { profile: bankProfileOf(bankCode), calendar: calendarOf(config) };
}

/**
 * When a debit date's subscription charges must exist (docs/guide/recurring-billing.md#the-cycle):
 * under the Zengin connector its file cutoff, before the request file is written; under the
 * simulated bank, which debits at once, the debit date's start (00:00 JST).
 */
export function billingRulesOf(config: Config): BillingRules {
  const calendar = calendarOf(config);
  const timetable = timetableOf(config);
  return {
    calendar,
    chargeMomentOf: (debitDate) =>
      config.bankConnector === "zengin" ? fileCutoffOf(debitDate, timetable, calendar) : jstInstant(debitDate),
  };
}
