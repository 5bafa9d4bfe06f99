import { describe, expect, it } from "vitest";
import { PaymentWorkflow } from "../../gen/payments/v1/enums_pb.js";
import { chooseOnSessionWorkflow, type OnSessionFacts } from "./on-session-workflow.js";
import type { PaymentFailure } from "./payment-failure.js";

const facts = (overrides: Partial<OnSessionFacts>): OnSessionFacts => ({
  byCustomerId: false,
  price: 1000,
  oneOff: false,
  customer: undefined,
  ...overrides,
});

const rejection = (input: Partial<OnSessionFacts>) => {
  try {
    chooseOnSessionWorkflow(facts(input));
  } catch (error) {
    return (error as PaymentFailure).code;
  }
  return undefined;
};

describe("chooseOnSessionWorkflow", () => {
  it("follows the workflows table", () => {
    expect(chooseOnSessionWorkflow(facts({}))).toBe(PaymentWorkflow.CONTRACT_WITH_CHARGE);
    expect(chooseOnSessionWorkflow(facts({ price: undefined }))).toBe(PaymentWorkflow.CONTRACT);
    expect(chooseOnSessionWorkflow(facts({ customer: { activeContract: false } }))).toBe(
      PaymentWorkflow.CONTRACT_WITH_CHARGE,
    );
    expect(chooseOnSessionWorkflow(facts({ customer: { activeContract: true } }))).toBe(PaymentWorkflow.CHARGE);
    expect(chooseOnSessionWorkflow(facts({ byCustomerId: true, customer: { activeContract: true } }))).toBe(
      PaymentWorkflow.CHARGE,
    );
    expect(chooseOnSessionWorkflow(facts({ oneOff: true, customer: { activeContract: true } }))).toBe(
      PaymentWorkflow.ONE_TIME_CHARGE,
    );
    expect(
      chooseOnSessionWorkflow(facts({ byCustomerId: true, oneOff: true, customer: { activeContract: false } })),
    ).toBe(PaymentWorkflow.ONE_TIME_CHARGE);
  });

  it("rejects with the catalogued codes, request shape first", () => {
    expect(rejection({ byCustomerId: true, price: undefined })).toBe("ON_SESSION_PAYMENT_ERROR_CODE_MISSING_CHARGE");
    expect(rejection({ oneOff: true, price: undefined })).toBe("ON_SESSION_PAYMENT_ERROR_CODE_MISSING_CHARGE");
    expect(rejection({ byCustomerId: true })).toBe("ON_SESSION_PAYMENT_ERROR_CODE_CUSTOMER_NOT_FOUND");
    expect(rejection({ byCustomerId: true, customer: { activeContract: false } })).toBe(
      "ON_SESSION_PAYMENT_ERROR_CODE_CUSTOMER_INACTIVE",
    );
  });
});
