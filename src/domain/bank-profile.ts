import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { jstDayStart, jstMonthStart } from "./jst.js";
import { maintenanceAt, type MaintenanceWindow } from "./maintenance-window.js";
import { errorTypeMessages } from "./payment-failure.js";
import { zenginFailureMessage, zenginResultOfAccount } from "./zengin-result.js";

/** Debit limits of a contract, in yen; 0 means none. Days and months start at 00:00 JST. */
export interface BankLimits {
  readonly perPayment: number;
  readonly perDay: number;
  readonly perMonth: number;
}

/**
 * How one simulated bank behaves (docs/guide/simulated-bank.md). The sandbox picks the
 * profile by the linked account's 4-digit bank code; any code not listed gets the default.
 */
export interface BankProfile {
  readonly bankCode: string;
  readonly name: string;
  /** JST "HH:MM": the same-day boundary between cancelling a charge and refunding it by transfer. */
  readonly cutoff: string;
  /** A refund transfer settles this many business days after the day it was requested. */
  readonly refundSettlementBusinessDays: number;
  /** JST "HH:MM" of the morning batch in which refund transfers settle. */
  readonly settlementTime: string;
  readonly maintenance: readonly MaintenanceWindow[];
  readonly limits: BankLimits;
  /** Linking asks for the account's PIN and the bank's one-time password (bank-authentication.ts). */
  readonly authentication: boolean;
}

const noLimits: BankLimits = Object.freeze({ perPayment: 0, perDay: 0, perMonth: 0 });

/**
 * The default bank (code 0001 and any unlisted code): the calendar and the 15:00 cutoff, but no
 * maintenance windows, no limits and no authentication step, so tests that do not ask for them
 * never meet them.
 */
export const defaultBankProfile: BankProfile = Object.freeze({
  bankCode: "0001",
  name: "Furikomi Sandbox Bank",
  cutoff: "15:00",
  refundSettlementBusinessDays: 1,
  settlementTime: "09:00",
  maintenance: [],
  limits: noLimits,
  authentication: false,
});

/** Banks with the rules seen at Japanese banks; their codes (99xx) are reserved for the sandbox. */
export const simulatedBankProfiles: readonly BankProfile[] = Object.freeze([
  {
    ...defaultBankProfile,
    authentication: true,
    bankCode: "9901",
    name: "Sandbox Daily Window Bank",
    maintenance: [
      {
        description: "daily 23:55–00:05 JST",
        anchor: "daily",
        from: { dayOffset: 0, time: "23:55" },
        to: { dayOffset: 1, time: "00:05" },
      },
    ],
    limits: { perPayment: 100_000, perDay: 100_000, perMonth: 0 },
  },
  {
    ...defaultBankProfile,
    authentication: true,
    bankCode: "9902",
    name: "Sandbox Late Cutoff Bank",
    cutoff: "18:00",
    refundSettlementBusinessDays: 2,
    maintenance: [
      {
        description: "Sunday 23:55 to Monday 06:00 JST before the 1st and 3rd Mondays",
        anchor: { weekday: 1, nthInMonth: [1, 3] },
        from: { dayOffset: -1, time: "23:55" },
        to: { dayOffset: 0, time: "06:00" },
      },
    ],
    limits: noLimits,
  },
  {
    ...defaultBankProfile,
    authentication: true,
    bankCode: "9903",
    name: "Sandbox Second Saturday Bank",
    maintenance: [
      {
        description: "2nd Saturday 21:00 to Sunday 07:00 JST",
        anchor: { weekday: 6, nthInMonth: [2] },
        from: { dayOffset: 0, time: "21:00" },
        to: { dayOffset: 1, time: "07:00" },
      },
    ],
    limits: { perPayment: 0, perDay: 30_000, perMonth: 30_000 },
  },
  {
    ...defaultBankProfile,
    authentication: true,
    bankCode: "9904",
    name: "Sandbox Daytime Bank",
    maintenance: [
      {
        description: "open 08:00–22:00 JST only (closed 22:00–08:00)",
        anchor: "daily",
        from: { dayOffset: 0, time: "22:00" },
        to: { dayOffset: 1, time: "08:00" },
      },
    ],
    limits: noLimits,
  },
]);

/** The profile of a bank code: a listed simulated bank, else the default with that code. */
export function bankProfileOf(bankCode: string | undefined): BankProfile {
  return simulatedBankProfiles.find((profile) => profile.bankCode === bankCode) ?? defaultBankProfile;
}

/** Which limit a debit would break, given what the account was already debited today and this month. */
export function limitExceeded(
  limits: BankLimits,
  amount: number,
  debited: { today: number; thisMonth: number },
): keyof BankLimits | undefined {
  if (limits.perPayment > 0 && amount > limits.perPayment) return "perPayment";
  if (limits.perDay > 0 && debited.today + amount > limits.perDay) return "perDay";
  if (limits.perMonth > 0 && debited.thisMonth + amount > limits.perMonth) return "perMonth";
  return undefined;
}

/** A bank's refusal of a booking: why, and whether (and from when) a retry may succeed. */
export interface BankRefusal {
  readonly errorType: ErrorType;
  readonly message: string;
  readonly retryable: boolean;
  readonly retryAfter?: Date;
}

const limitLabels: Readonly<Record<keyof BankLimits, string>> = Object.freeze({
  perPayment: "per payment",
  perDay: "per day",
  perMonth: "per month",
});

/**
 * The rules of the account's bank that need no history: its maintenance windows (debits and
 * refunds), then for debits the Zengin result of a magic account number. Undefined: no objection
 * (the limits are checked next, by `limitRefusal`).
 */
export function bankRuleRefusal(
  profile: BankProfile,
  accountNumber: string,
  request: { signedAmount: number; at: Date },
): BankRefusal | undefined {
  const window = maintenanceAt(profile.maintenance, request.at);
  if (window) {
    const message = `${errorTypeMessages[ErrorType.PAYMENT_GATEWAY_UNAVAILABLE]} (${profile.name} maintenance, ${window.description}, until ${window.end.toISOString()})`;
    return { errorType: ErrorType.PAYMENT_GATEWAY_UNAVAILABLE, message, retryable: true, retryAfter: window.end };
  }
  if (request.signedAmount >= 0) return undefined;
  const zengin = zenginResultOfAccount(accountNumber);
  if (zengin) return { errorType: zengin.errorType, message: zenginFailureMessage(zengin), retryable: false };
  return undefined;
}

/** The limit rule: a debit of `amount` refused when it breaks one of the bank's limits. */
export function limitRefusal(
  profile: BankProfile,
  amount: number,
  debited: { today: number; thisMonth: number },
): BankRefusal | undefined {
  const exceeded = limitExceeded(profile.limits, amount, debited);
  if (!exceeded) return undefined;
  const message = `${errorTypeMessages[ErrorType.PAYMENT_CHARGE_OVER_LIMIT]} (${profile.name}: ¥${profile.limits[exceeded].toLocaleString("en")} ${limitLabels[exceeded]})`;
  return { errorType: ErrorType.PAYMENT_CHARGE_OVER_LIMIT, message, retryable: false };
}

/**
 * The running totals of an account's debits, kept on its row and updated with each debit (so a
 * debit costs the same however long the account's history): the sums since the starts (ISO
 * instants) of the JST day and month of the latest debit. An account never debited has empty starts.
 */
export interface DebitTotals {
  readonly dayStart: string;
  readonly today: number;
  readonly monthStart: string;
  readonly thisMonth: number;
}

export const noDebits: DebitTotals = Object.freeze({ dayStart: "", today: 0, monthStart: "", thisMonth: 0 });

/** What the account was debited since 00:00 JST today and since the 1st of the month (JST), from its running totals. */
export function debitedSoFar(totals: DebitTotals, at: Date): { today: number; thisMonth: number } {
  return {
    today: totals.dayStart >= jstDayStart(at).toISOString() ? totals.today : 0,
    thisMonth: totals.monthStart >= jstMonthStart(at).toISOString() ? totals.thisMonth : 0,
  };
}

/** The running totals after a debit of `amount` yen at `at`: a new JST day or month starts its sum afresh. */
export function withDebit(totals: DebitTotals, amount: number, at: Date): DebitTotals {
  const sofar = debitedSoFar(totals, at);
  const dayStart = jstDayStart(at).toISOString();
  const monthStart = jstMonthStart(at).toISOString();
  return {
    dayStart: totals.dayStart > dayStart ? totals.dayStart : dayStart,
    today: sofar.today + amount,
    monthStart: totals.monthStart > monthStart ? totals.monthStart : monthStart,
    thisMonth: sofar.thisMonth + amount,
  };
}

/**
 * The running totals after the debit of `amount` yen made at `debitAt` is reversed: taken off
 * today's and this month's sums when it counted in them (never below 0).
 */
export function withoutDebit(totals: DebitTotals, amount: number, debitAt: Date): DebitTotals {
  const sameDay = totals.dayStart === jstDayStart(debitAt).toISOString();
  const sameMonth = totals.monthStart === jstMonthStart(debitAt).toISOString();
  return {
    ...totals,
    today: sameDay ? Math.max(0, totals.today - amount) : totals.today,
    thisMonth: sameMonth ? Math.max(0, totals.thisMonth - amount) : totals.thisMonth,
  };
}
