import { isBillingPeriod, type BillingPeriod } from "./billing-period.js";
import type { CsvLayout } from "./csv-file.js";
import { emailPattern, joinReasons, type CsvReason, type CsvReasonFields } from "./csv-row.js";
import { normalizeEmail } from "./customer.js";
import { limits } from "./limits.js";

/**
 * The CSV import of subscriptions (docs/guide/recurring-billing.md#importing-subscriptions-from-a-csv-file):
 * one subscription per row, confirmed with a TOTP code as a charge batch is. Pure: the row rules
 * that need no database; customers, plans and start periods are resolved after.
 */
export const subscriptionImportColumns = Object.freeze([
  "customer_email",
  "customer_id",
  "plan_id",
  "start_period",
  "amount",
] as const);

/** The header: the first four columns, `amount` optional; at most subscriptionImportRowsMax rows. */
export const subscriptionImportLayout: CsvLayout = Object.freeze({
  columns: subscriptionImportColumns,
  required: 4,
  rowsMax: limits.subscriptionImportRowsMax,
});

/** The reasons of a row not imported, in English (the result's Reason) and Japanese (理由). */
export const importReasons = Object.freeze({
  columnCount: (expected: number, found: number): CsvReason => ({
    en: `Wrong number of columns: expected ${expected}, found ${found}`,
    ja: `列の数が違います(${expected}列のはずが${found}列)`,
  }),
  customerRequired: {
    en: "customer_email or customer_id is required",
    ja: "customer_email か customer_id のどちらかを書いてください",
  },
  emailInvalid: {
    en: "customer_email is not a valid e-mail address",
    ja: "customer_email がメールアドレスの形式ではありません",
  },
  customerIdPrefix: {
    en: "customer_id must start with cus- or be empty",
    ja: "customer_id は cus- で始まるか、空にしてください",
  },
  planIdRequired: { en: "plan_id must be a pln-… id", ja: "plan_id には pln- で始まるプランIDを書いてください" },
  startPeriodFormat: {
    en: "start_period must be YYYY-MM or empty",
    ja: "start_period は YYYY-MM の形で書くか、空にしてください",
  },
  amountFormat: {
    en: `amount must be empty (the plan's price) or whole yen from ${limits.chargePriceYenMin} to ${limits.chargePriceYenMax}`,
    ja: `amount は空(プランの料金)か、${limits.chargePriceYenMin}円以上${limits.chargePriceYenMax.toLocaleString("ja-JP")}円以下の整数にしてください`,
  },
  sameSubscription: {
    en: "Several rows subscribe the same customer to the same plan",
    ja: "同じ顧客を同じプランに申し込む行が複数あります",
  },
  planNotFound: { en: "Plan not found", ja: "プランが見つかりません" },
  alreadySubscribed: {
    en: "The customer already has a subscription to this plan",
    ja: "この顧客はすでにこのプランの定期課金があります",
  },
  startPeriodPassed: (period: string, debitDate: string): CsvReason => ({
    en: `The charge of period ${period} (debit date ${debitDate}) is already due: start from a later period`,
    ja: `${period}期の振替(${debitDate})はすでに確定しています。後の期から開始してください`,
  }),
});

/** A row that passed the rules of its own: what its subscription is made of. */
export interface ImportRow {
  email: string;
  /** Given in the row; otherwise the customer is found by e-mail. */
  customerId: string;
  planId: string;
  /** Empty: the first period whose charge is not yet due. */
  startPeriod: BillingPeriod | undefined;
  /** Empty: the plan's price. */
  amount: number | undefined;
}

export type ImportRowCheck = { valid: true; row: ImportRow } | ({ valid: false } & CsvReasonFields);

function invalid(reasons: readonly CsvReason[]): { valid: false } & CsvReasonFields {
  const { en, ja } = joinReasons(reasons);
  return { valid: false, reason: en, reasonJa: ja };
}

/** One row on its own. */
export function checkImportRow(cells: readonly string[], columnCount: number): ImportRowCheck {
  if (cells.length !== columnCount) return invalid([importReasons.columnCount(columnCount, cells.length)]);
  const [emailCell, customerIdCell, planIdCell, startPeriodCell, amountCell = ""] = cells.map((cell) => cell.trim());
  const problems: CsvReason[] = [];
  if (emailCell === "" && customerIdCell === "") problems.push(importReasons.customerRequired);
  if (emailCell !== "" && (emailCell.length > limits.customerEmailLengthMax || !emailPattern.test(emailCell)))
    problems.push(importReasons.emailInvalid);
  if (customerIdCell !== "" && !/^cus-\S{1,60}$/.test(customerIdCell)) problems.push(importReasons.customerIdPrefix);
  if (!/^pln-\S{1,60}$/.test(planIdCell)) problems.push(importReasons.planIdRequired);
  if (startPeriodCell !== "" && !isBillingPeriod(startPeriodCell)) problems.push(importReasons.startPeriodFormat);
  const amount = Number(amountCell);
  if (
    amountCell !== "" &&
    (!/^[0-9]+$/.test(amountCell) || amount < limits.chargePriceYenMin || amount > limits.chargePriceYenMax)
  )
    problems.push(importReasons.amountFormat);
  if (problems.length > 0) return invalid(problems);
  return {
    valid: true,
    row: {
      email: emailCell,
      customerId: customerIdCell,
      planId: planIdCell,
      startPeriod: startPeriodCell || undefined,
      amount: amountCell === "" ? undefined : amount,
    },
  };
}

/**
 * Every row: each on its own, then across rows: rows that subscribe one customer (the same
 * customer_id, or the same e-mail on rows without one) to one plan all fail, which of them was
 * meant is not ours to guess.
 */
export function checkImportRows(rows: readonly string[][], columnCount: number): ImportRowCheck[] {
  const checks = rows.map((cells) => checkImportRow(cells, columnCount));
  const keys = checks.map((check) =>
    check.valid ? `${check.row.customerId || `email:${normalizeEmail(check.row.email)}`}|${check.row.planId}` : "",
  );
  const duplicated = indexesSharingKey(keys);
  return checks.map((check, i) => (duplicated.has(i) ? invalid([importReasons.sameSubscription]) : check));
}

/** The indexes whose non-empty key another index shares. */
export function indexesSharingKey(keys: readonly string[]): Set<number> {
  const counts = new Map<string, number>();
  for (const key of keys) if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  return new Set(keys.flatMap((key, i) => (key && (counts.get(key) ?? 0) > 1 ? [i] : [])));
}
