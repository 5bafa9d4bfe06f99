import { DunningAction, FirstPeriodRule, IntervalUnit } from "../../../../gen/payments/v1/subscription_service_pb.js";
import {
  type PlanFormField,
  type PlanFormValues,
  planFormBounds as bounds,
  planFormProblems,
} from "../../../domain/plan-form.js";
import type { AppContext } from "../app-context.js";
import { busy, errorBox, field, h } from "../dom.js";
import { bt } from "../i18n-billing.js";
import { rpc } from "../rpc.js";

const numberInput = (name: string, min: number, max: number, value = "") =>
  h("input", { name, type: "number", min, max, step: 1, inputmode: "numeric", value });

const select = (name: string, options: Array<[string, string]>) =>
  h(
    "select",
    { name },
    options.map(([value, text]) => h("option", { value }, text)),
  );

/**
 * A plan with what CreatePlan takes (docs/guide/dashboard.md#recurring-billing): name, price,
 * interval, debit day, first period, a discount, what 資金不足 leads to (再振替, 合算 or nothing) and
 * the notice. Checked before sending with the proto's rules (domain/plan-form.ts): a field that
 * breaks one says why and the form is not sent.
 */
export function newPlanForm(app: AppContext): HTMLElement {
  const problem = errorBox();
  const inputs = {
    name: h("input", { name: "name", required: true, maxlength: bounds.nameLengthMax, autocomplete: "off" }),
    amount: numberInput("amount", bounds.amountMin, bounds.amountMax),
    intervalUnit: select("intervalUnit", [
      ["month", bt().unitMonth],
      ["year", bt().unitYear],
    ]),
    intervalCount: numberInput("intervalCount", bounds.intervalCountMin, bounds.intervalMonthsMax, "1"),
    debitDay: numberInput("debitDay", 0, bounds.debitDayMax, "27"),
    firstPeriod: select("firstPeriod", [
      ["full", bt().firstPeriodFull],
      ["none", bt().firstPeriodNone],
    ]),
    discount: select("discount", [
      ["none", bt().discountNone],
      ["amount", bt().discountAmount],
      ["percent", bt().discountPercent],
    ]),
    discountValue: numberInput("discountValue", 1, bounds.discountAmountMax),
    discountPeriods: numberInput("discountPeriods", 1, bounds.discountPeriodsMax, "1"),
    dunning: select("dunning", [
      ["stop", bt().dunningStop],
      ["retry", bt().dunningRetry],
      ["carry_over", bt().dunningCarry],
    ]),
    retryAfterDays: numberInput("retryAfterDays", 1, bounds.retryAfterDaysMax, String(bounds.retryAfterDaysDefault)),
    maxAttempts: numberInput("maxAttempts", 1, bounds.maxAttemptsMax, String(bounds.maxAttemptsDefault)),
    cancelOnGiveUp: h("input", { name: "cancelOnGiveUp", type: "checkbox" }),
    noticeDays: numberInput("noticeDays", 0, bounds.noticeDaysMax, String(bounds.noticeDaysDefault)),
  };
  const { name, amount, intervalUnit, intervalCount, debitDay, discount, discountValue, discountPeriods } = inputs;
  const { dunning, retryAfterDays, maxAttempts, cancelOnGiveUp, noticeDays, firstPeriod } = inputs;
  const discountFields = h(
    "div",
    { class: "inline" },
    field(bt().discountValue, discountValue),
    field(bt().discountPeriods, discountPeriods),
  );
  const retryField = field(bt().retryAfterDays, retryAfterDays);
  const dunningFields = h(
    "div",
    { class: "inline" },
    retryField,
    field(bt().maxAttempts, maxAttempts),
    h(
      "div",
      { class: "check" },
      cancelOnGiveUp,
      h(
        "label",
        { for: (cancelOnGiveUp.id = `cancel-on-give-up-${Math.random().toString(36).slice(2)}`) },
        bt().cancelOnGiveUp,
      ),
    ),
  );

  const values = (): PlanFormValues => ({
    name: name.value,
    amount: amount.valueAsNumber,
    intervalUnit: intervalUnit.value as PlanFormValues["intervalUnit"],
    intervalCount: intervalCount.valueAsNumber,
    debitDay: debitDay.valueAsNumber,
    discount: discount.value as PlanFormValues["discount"],
    discountValue: discountValue.valueAsNumber,
    discountPeriods: discountPeriods.valueAsNumber,
    dunning: dunning.value as PlanFormValues["dunning"],
    retryAfterDays: retryAfterDays.valueAsNumber,
    maxAttempts: maxAttempts.valueAsNumber,
    noticeDays: noticeDays.valueAsNumber,
  });
  /** Shows the settings the choices use, with the bounds that apply, and marks each field a rule faults. */
  const check = () => {
    const year = intervalUnit.value === "year";
    intervalCount.max = String(year ? bounds.intervalYearsMax : bounds.intervalMonthsMax);
    discountValue.max = String(discount.value === "percent" ? bounds.discountPercentMax : bounds.discountAmountMax);
    discountFields.hidden = discount.value === "none";
    dunningFields.hidden = dunning.value === "stop";
    retryField.hidden = dunning.value !== "retry";
    const problems = new Map(planFormProblems(values()).map((p) => [p.field, p.rule]));
    for (const [key, input] of Object.entries(inputs) as Array<[PlanFormField, HTMLInputElement]>) {
      if (input.type === "checkbox") continue;
      const rule = problems.get(key);
      input.setCustomValidity(rule ? bt().planRule(rule) : "");
      input.setAttribute("aria-invalid", rule ? "true" : "false");
    }
    return problems.size === 0;
  };
  const submit = h("button", { type: "submit" }, bt().create);
  const form = h(
    "form",
    { "aria-label": bt().newPlan },
    h("div", { class: "inline" }, field(bt().planName, name), field(bt().amount, amount)),
    h(
      "div",
      { class: "inline" },
      field(bt().intervalUnit, intervalUnit),
      field(bt().intervalCount, intervalCount),
      field(bt().dayOfMonth, debitDay),
      field(bt().firstPeriod, firstPeriod),
    ),
    h("fieldset", {}, h("legend", {}, bt().discount), field(bt().discountKind, discount), discountFields),
    h("fieldset", {}, h("legend", {}, bt().dunning), field(bt().dunningAction, dunning), dunningFields),
    field(bt().noticeDays, noticeDays, bt().noticeDaysHint),
    h("div", { class: "actions" }, submit),
    problem,
  );
  form.addEventListener("input", check);
  form.addEventListener("change", check);
  check();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!check()) {
      form.reportValidity();
      return;
    }
    const v = values();
    void busy(submit, problem, async () => {
      await rpc.createBillingPlan({
        plan: {
          name: v.name,
          amount: v.amount,
          intervalUnit: v.intervalUnit === "year" ? IntervalUnit.YEAR : IntervalUnit.MONTH,
          intervalCount: v.intervalCount,
          debitDay: v.debitDay,
          debitOnLastDay: v.debitDay === 0,
          firstPeriod: firstPeriod.value === "none" ? FirstPeriodRule.NONE : FirstPeriodRule.FULL,
          discount:
            v.discount === "none"
              ? undefined
              : { off: { case: v.discount, value: v.discountValue }, periods: v.discountPeriods },
          dunning: {
            action:
              v.dunning === "retry"
                ? DunningAction.RETRY
                : v.dunning === "carry_over"
                  ? DunningAction.CARRY_OVER
                  : DunningAction.STOP,
            retryAfterDays: v.dunning === "retry" ? v.retryAfterDays : 0,
            maxAttempts: v.dunning === "stop" ? 0 : v.maxAttempts,
            cancelOnGiveUp: v.dunning !== "stop" && cancelOnGiveUp.checked,
          },
          noticeDays: v.noticeDays,
        },
      });
      app.announce(bt().created(v.name));
      await app.refreshUser();
    });
  });
  return h("details", {}, h("summary", {}, bt().newPlan), form);
}
