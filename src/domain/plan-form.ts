import { limits } from "./limits.js";

/**
 * The bounds of CreatePlanRequest as its protovalidate rules write them
 * (proto/payments/v1/subscription_service.proto), for the dashboard's plan form to check before it
 * sends (test/unit/plan-form-rules.test.ts holds them equal to the proto's). The form is a
 * convenience: the server checks the same rules again.
 */
export const planFormBounds = Object.freeze({
  nameLengthMax: 100,
  amountMin: limits.chargePriceYenMin,
  amountMax: limits.chargePriceYenMax,
  intervalCountMin: 1,
  intervalMonthsMax: 12,
  intervalYearsMax: 3,
  debitDayMax: 28,
  discountAmountMax: 10_000_000,
  discountPercentMax: 100,
  discountPeriodsMax: 120,
  /** 1 to 20 days; the API reads 0 as the default, 5. */
  retryAfterDaysMax: 20,
  retryAfterDaysDefault: 5,
  /** 1 to 4 attempts, the first debit included; the API reads 0 as the default, 2. */
  maxAttemptsMax: 4,
  maxAttemptsDefault: 2,
  noticeDaysMax: 14,
  noticeDaysDefault: 3,
});

/** What the form holds, as numbers (NaN for a blank number field). */
export interface PlanFormValues {
  name: string;
  amount: number;
  intervalUnit: "month" | "year";
  intervalCount: number;
  /** 1–28, or 0 for 末日. */
  debitDay: number;
  discount: "none" | "amount" | "percent";
  discountValue: number;
  discountPeriods: number;
  dunning: "stop" | "retry" | "carry_over";
  retryAfterDays: number;
  maxAttempts: number;
  noticeDays: number;
}

/** The form's fields a rule can fault. */
export type PlanFormField = keyof PlanFormValues;

const within = (value: number, min: number, max: number) => Number.isInteger(value) && value >= min && value <= max;

/**
 * The fields that break a CreatePlanRequest rule, each with the rule's key (the page words it):
 * the same bounds as the proto, read only where they apply (a discount's value and periods with a
 * discount, the re-debit days with re-debits, the attempts with re-debits or 合算).
 */
export function planFormProblems(values: PlanFormValues): Array<{ field: PlanFormField; rule: string }> {
  const b = planFormBounds;
  const problems: Array<{ field: PlanFormField; rule: string }> = [];
  const check = (field: PlanFormField, ok: boolean, rule: string) => {
    if (!ok) problems.push({ field, rule });
  };
  const name = values.name.trim();
  check("name", name.length >= 1 && name.length <= b.nameLengthMax, "name");
  check("amount", within(values.amount, b.amountMin, b.amountMax), "amount");
  const countMax = values.intervalUnit === "year" ? b.intervalYearsMax : b.intervalMonthsMax;
  check(
    "intervalCount",
    within(values.intervalCount, b.intervalCountMin, countMax),
    `intervalCount.${values.intervalUnit}`,
  );
  check("debitDay", within(values.debitDay, 0, b.debitDayMax), "debitDay");
  if (values.discount !== "none") {
    const valueMax = values.discount === "amount" ? b.discountAmountMax : b.discountPercentMax;
    check("discountValue", within(values.discountValue, 1, valueMax), `discountValue.${values.discount}`);
    check("discountPeriods", within(values.discountPeriods, 1, b.discountPeriodsMax), "discountPeriods");
  }
  if (values.dunning === "retry")
    check("retryAfterDays", within(values.retryAfterDays, 1, b.retryAfterDaysMax), "retryAfterDays");
  if (values.dunning !== "stop") check("maxAttempts", within(values.maxAttempts, 1, b.maxAttemptsMax), "maxAttempts");
  check("noticeDays", within(values.noticeDays, 0, b.noticeDaysMax), "noticeDays");
  return problems;
}
