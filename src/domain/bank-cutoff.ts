import type { BankCalendar } from "./bank-calendar.js";
import type { BankProfile } from "./bank-profile.js";
import { jstDateOf, jstInstant, type JstDate } from "./jst.js";

/** A bank's profile and the business-day calendar it keeps. */
export interface BankRules {
  readonly profile: BankProfile;
  readonly calendar: BankCalendar;
}

/**
 * The bank day a debit at `at` is booked on: the same day before the cutoff on a business day,
 * else the next business day (a charge at 16:00 on Friday belongs to Monday).
 */
export function bankDayOf({ profile, calendar }: BankRules, at: Date): JstDate {
  const date = jstDateOf(at);
  if (calendar.isBusinessDay(date) && at < jstInstant(date, profile.cutoff)) return date;
  return calendar.nextBusinessDay(date);
}

/**
 * The end of the window in which a full refund cancels the charge instead of transferring money
 * back: the bank's cutoff on the charge's bank day (this replaces the JST midnight of docs/reference/contract.md#money-and-time).
 *
 * @example // 15:00 cutoff: a charge at 10:00 JST on Tuesday can be cancelled until 15:00 JST Tuesday
 */
export function cancellationDeadline(rules: BankRules, succeededAt: Date): Date {
  return jstInstant(bankDayOf(rules, succeededAt), rules.profile.cutoff);
}

/**
 * When a refund transfer requested at `requestedAt` settles: in the bank's morning batch on the
 * N-th business day after the JST day of the request (N = 1 or 2 by bank), so a refund on a
 * Friday settles on Monday and one on 12/30 on 1/4.
 */
export function refundSettlesAt({ profile, calendar }: BankRules, requestedAt: Date): Date {
  let day = jstDateOf(requestedAt);
  for (let n = 0; n < profile.refundSettlementBusinessDays; n++) day = calendar.nextBusinessDay(day);
  return jstInstant(day, profile.settlementTime);
}
