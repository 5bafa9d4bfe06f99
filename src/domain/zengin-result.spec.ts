import { describe, expect, it } from "vitest";
import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { zenginFailureMessage, zenginResultOfAccount, zenginResultOfMessage, zenginResults } from "./zengin-result.js";

describe("zenginResultOfAccount", () => {
  it("maps the magic account numbers 999999N to Zengin result N", () => {
    expect(zenginResultOfAccount("9999991")?.errorType).toBe(ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS);
    expect(zenginResultOfAccount("9999992")).toMatchObject({
      errorType: ErrorType.PAYMENT_CUSTOMER_INACTIVE,
      relink: true,
    });
    expect(zenginResultOfAccount("9999993")?.errorType).toBe(ErrorType.PAYMENT_GATEWAY_FAILED);
    expect(zenginResultOfAccount("9999994")).toMatchObject({
      errorType: ErrorType.PAYMENT_CUSTOMER_INACTIVE,
      relink: true,
    });
    expect(zenginResultOfAccount("9999999")?.errorType).toBe(ErrorType.PAYMENT_GATEWAY_FAILED);
  });

  it("leaves other numbers alone", () => {
    expect(zenginResultOfAccount("9999995")).toBeUndefined();
    expect(zenginResultOfAccount("1234567")).toBeUndefined();
  });

  it("says the code in the message after the ErrorType's default", () => {
    expect(zenginFailureMessage(zenginResultOfAccount("9999991")!)).toBe(
      "Customer has insufficient funds (Zengin result 1: insufficient funds, 資金不足)",
    );
  });

  it("reads the code back from the message, for the dashboard's 振替結果コード", () => {
    for (const result of zenginResults) expect(zenginResultOfMessage(zenginFailureMessage(result))).toBe(result);
    expect(zenginResultOfMessage("Customer has insufficient funds")).toBeUndefined();
  });
});
