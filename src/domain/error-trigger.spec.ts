import { describe, expect, it } from "vitest";
import { ErrorType, PaymentWorkflow } from "../../gen/payments/v1/enums_pb.js";
import { errorTriggerOf, onSessionTriggerSource, parseTriggerError, triggeredErrorMessage } from "./error-trigger.js";

const every = Object.values(ErrorType).filter(
  (v): v is ErrorType => typeof v === "number" && v !== ErrorType.UNSPECIFIED,
);
const named = (errorType: ErrorType) => ({ triggerError: `ERROR_TYPE_${ErrorType[errorType]}` });

describe("errorTriggerOf", () => {
  it("ApprovePayment and off-session: every ErrorType triggers", () => {
    expect(every).toHaveLength(10);
    for (const errorType of every) {
      expect(errorTriggerOf(named(errorType), "approve_payment", true)).toEqual({ kind: "error", errorType });
      expect(errorTriggerOf(named(errorType), "off_session", true)).toEqual({ kind: "error", errorType });
    }
  });

  it("InitiatePayment: only VALIDATION_FAILED and LINK_EXPIRED; any other value is ignored", () => {
    const triggering = every.filter(
      (errorType) => errorTriggerOf(named(errorType), "initiate_payment", true).kind === "error",
    );
    expect(triggering).toEqual([ErrorType.PAYMENT_VALIDATION_FAILED, ErrorType.PAYMENT_LINK_EXPIRED]);
    expect(errorTriggerOf({ triggerError: "nonsense" }, "initiate_payment", true)).toEqual({ kind: "none" });
  });

  it("an invalid or unrecognised value is invalid (BAD_REQUEST), case-sensitively", () => {
    for (const value of [
      "",
      "nonsense",
      "error_type_payment_charge_failed",
      "ERROR_TYPE_UNSPECIFIED",
      "ERROR_TYPE_4",
      "ERROR_TYPE_constructor",
      "PAYMENT_CHARGE_FAILED",
    ]) {
      expect(errorTriggerOf({ triggerError: value }, "off_session", true), value).toEqual({ kind: "invalid", value });
      expect(parseTriggerError(value)).toBeUndefined();
    }
  });

  it("without the key, or outside sandbox mode, nothing is triggered", () => {
    expect(errorTriggerOf({ order: "42" }, "off_session", true)).toEqual({ kind: "none" });
    expect(errorTriggerOf({ TriggerError: "ERROR_TYPE_PAYMENT_CHARGE_FAILED" }, "off_session", true)).toEqual({
      kind: "none",
    });
    expect(errorTriggerOf(named(ErrorType.PAYMENT_CHARGE_FAILED), "off_session", false)).toEqual({ kind: "none" });
    expect(errorTriggerOf({ triggerError: "nonsense" }, "approve_payment", false)).toEqual({ kind: "none" });
  });
});

describe("the metadata source and the message", () => {
  it("is the customer's metadata for CONTRACT, the charge metadata otherwise", () => {
    expect(onSessionTriggerSource(PaymentWorkflow.CONTRACT)).toBe("customer");
    for (const workflow of [
      PaymentWorkflow.CHARGE,
      PaymentWorkflow.ONE_TIME_CHARGE,
      PaymentWorkflow.CONTRACT_WITH_CHARGE,
    ]) {
      expect(onSessionTriggerSource(workflow)).toBe("charge");
    }
  });

  it("says a test error was triggered and names the ErrorType", () => {
    expect(triggeredErrorMessage(ErrorType.PAYMENT_LINK_EXPIRED)).toMatch(
      /test error triggered.*ERROR_TYPE_PAYMENT_LINK_EXPIRED/,
    );
  });
});
