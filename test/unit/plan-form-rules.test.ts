import { getOption, hasOption } from "@bufbuild/protobuf";
import { field as fieldRules } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { describe, expect, it } from "vitest";
import {
  CreatePlanRequestSchema,
  PlanDiscountSchema,
  PlanDunningSchema,
} from "../../gen/payments/v1/subscription_service_pb.js";
import { planFormBounds } from "../../src/domain/plan-form.js";

// The dashboard's plan form checks CreatePlanRequest's rules before it sends
// (src/domain/plan-form.ts): its bounds must be the proto's.

function int32Bounds(
  message: typeof CreatePlanRequestSchema | typeof PlanDiscountSchema | typeof PlanDunningSchema,
  name: string,
) {
  const field = message.fields.find((f) => f.name === name);
  if (!field || !hasOption(field, fieldRules)) throw new Error(`${message.typeName}.${name} has no rules`);
  const rules = getOption(field, fieldRules);
  if (rules.type.case !== "int32") throw new Error(`${name} has no int32 rules`);
  const { greaterThan, lessThan } = rules.type.value;
  return {
    min: greaterThan.case === "gte" ? greaterThan.value : undefined,
    max: lessThan.case === "lte" ? lessThan.value : undefined,
  };
}

function stringMaxLength(name: string): number | undefined {
  const field = CreatePlanRequestSchema.fields.find((f) => f.name === name)!;
  const rules = getOption(field, fieldRules);
  return rules.type.case === "string" ? Number(rules.type.value.maxLen) : undefined;
}

describe("the plan form's bounds", () => {
  it("are CreatePlanRequest's", () => {
    const b = planFormBounds;
    expect(stringMaxLength("name")).toBe(b.nameLengthMax);
    expect(int32Bounds(CreatePlanRequestSchema, "interval_count")).toEqual({
      min: b.intervalCountMin,
      max: b.intervalMonthsMax,
    });
    expect(int32Bounds(CreatePlanRequestSchema, "debit_day")).toEqual({ min: 0, max: b.debitDayMax });
    expect(int32Bounds(CreatePlanRequestSchema, "notice_days")).toEqual({ min: 0, max: b.noticeDaysMax });
    expect(int32Bounds(PlanDiscountSchema, "amount")).toEqual({ min: 1, max: b.discountAmountMax });
    expect(int32Bounds(PlanDiscountSchema, "percent")).toEqual({ min: 1, max: b.discountPercentMax });
    expect(int32Bounds(PlanDiscountSchema, "periods")).toEqual({ min: 1, max: b.discountPeriodsMax });
    expect(int32Bounds(PlanDunningSchema, "retry_after_days")).toEqual({ min: 0, max: b.retryAfterDaysMax });
    expect(int32Bounds(PlanDunningSchema, "max_attempts")).toEqual({ min: 0, max: b.maxAttemptsMax });
    // The amount's CEL rule and the yearly plan's message rule, as written.
    const amount = getOption(CreatePlanRequestSchema.fields.find((f) => f.name === "amount")!, fieldRules);
    expect(amount.cel[0].expression).toBe(`this >= ${b.amountMin} && this <= ${b.amountMax}`);
  });
});
