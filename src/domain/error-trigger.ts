import { ErrorType, PaymentWorkflow } from "../../gen/payments/v1/enums_pb.js";
import { errorTypeMessages, errorTypeName } from "./payment-failure.js";
import type { Metadata } from "./records.js";

/**
 * docs/reference/contract.md#error-triggers. In sandbox mode, payment metadata holding
 * `triggerError` with an ErrorType name short-circuits the flow with that error; in production it
 * is ordinary metadata.
 */
export const triggerErrorKey = "triggerError";

/** Where the rule is asked: the hosted page's two operations, and every off-session charge. */
export type TriggerPoint = "initiate_payment" | "approve_payment" | "off_session";

export type ErrorTrigger =
  | { kind: "none" }
  /** Short-circuit with this ErrorType. */
  | { kind: "error"; errorType: ErrorType }
  /** triggerError is set but names no ErrorType: a BAD_REQUEST. */
  | { kind: "invalid"; value: string };

const none: ErrorTrigger = Object.freeze({ kind: "none" });

/** docs/reference/contract.md#error-triggers: InitiatePayment triggers only these; any other value is ignored there. */
const initiatePaymentErrorTypes: readonly ErrorType[] = Object.freeze([
  ErrorType.PAYMENT_VALIDATION_FAILED,
  ErrorType.PAYMENT_LINK_EXPIRED,
]);

/** The ErrorType a triggerError value names exactly (ERROR_TYPE_…, case-sensitive), if any. */
export function parseTriggerError(value: string): ErrorType | undefined {
  const prefix = "ERROR_TYPE_";
  if (!value.startsWith(prefix)) return undefined;
  const name = value.slice(prefix.length);
  if (!Object.hasOwn(ErrorType, name)) return undefined;
  const errorType = ErrorType[name as keyof typeof ErrorType];
  return typeof errorType === "number" && errorType !== ErrorType.UNSPECIFIED ? errorType : undefined;
}

/** What the metadata asks for at this point; always none outside sandbox mode. */
export function errorTriggerOf(metadata: Metadata, point: TriggerPoint, sandbox: boolean): ErrorTrigger {
  if (!sandbox || !Object.hasOwn(metadata, triggerErrorKey)) return none;
  const value = metadata[triggerErrorKey];
  const errorType = parseTriggerError(value);
  if (point === "initiate_payment") {
    return errorType !== undefined && initiatePaymentErrorTypes.includes(errorType)
      ? { kind: "error", errorType }
      : none;
  }
  return errorType === undefined ? { kind: "invalid", value } : { kind: "error", errorType };
}

/**
 * docs/reference/contract.md#error-triggers: the metadata source of an on-session payment — the merchant customer's metadata for
 * PAYMENT_WORKFLOW_CONTRACT (it has no charge), the charge metadata for the other workflows.
 */
export function onSessionTriggerSource(workflow: PaymentWorkflow): "customer" | "charge" {
  return workflow === PaymentWorkflow.CONTRACT ? "customer" : "charge";
}

/** docs/reference/contract.md#error-triggers: the message says that a test error was triggered and names the ErrorType. */
export function triggeredErrorMessage(errorType: ErrorType): string {
  return `test error triggered by ${triggerErrorKey}: ${errorTypeName(errorType)} (${errorTypeMessages[errorType]})`;
}

export function invalidTriggerMessage(value: string): string {
  return `${triggerErrorKey}: ${JSON.stringify(value)} is not an ErrorType; use a value such as ERROR_TYPE_PAYMENT_CHARGE_FAILED`;
}
