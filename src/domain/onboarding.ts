import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { PaymentFailure } from "./payment-failure.js";
import { RequestRefusal } from "./request-refusal.js";

/**
 * Where a merchant stands on the way to live payments (docs/guide/getting-started.md#going-live):
 * signed up on the web → `incomplete` (filling the checklist) → `in_review` (submitted) →
 * `complete` (approved by the operator; sent back returns it to `incomplete`); `suspended` by
 * the operator at any time. Merchants made by `furikomi merchants create` start `complete`.
 */
export type OnboardingState = "incomplete" | "in_review" | "complete" | "suspended";

export const onboardingStates: readonly OnboardingState[] = Object.freeze([
  "incomplete",
  "in_review",
  "complete",
  "suspended",
]);

export function isOnboardingState(value: string): value is OnboardingState {
  return (onboardingStates as readonly string[]).includes(value);
}

/**
 * Why the merchant may not charge now, or undefined when it may (docs/reference/errors.md#onboarding).
 * A suspended merchant charges nowhere; one not yet approved charges only where no real money
 * moves (`liveMoney` false: the sandbox keeps working throughout).
 */
export function chargingBlock(state: OnboardingState, liveMoney: boolean): string | undefined {
  if (state === "suspended")
    return "the merchant is suspended by the operator: payments are refused until the operator lifts the suspension (not a temporary error)";
  if (liveMoney && state !== "complete")
    return "merchant onboarding is incomplete: live payments are refused until the operator approves the going-live checklist (not a temporary error)";
  return undefined;
}

/** The refusal of each way to charge, with the code the contract documents for it. */
export const chargingRefusals = Object.freeze({
  onSession: (why: string) =>
    new PaymentFailure(PaymentErrorCode.INTERNAL, why, {
      code: "ON_SESSION_PAYMENT_ERROR_CODE_STRATEGY_EXECUTION_FAILED",
    }),
  offSession: (why: string) =>
    new PaymentFailure(PaymentErrorCode.INTERNAL, why, { code: "ERROR_TYPE_PAYMENT_CHARGE_FAILED" }),
  /**
   * A call that charges, promises to charge every month or makes a key: CSV batches, subscriptions
   * (CreateSubscription, a subscription import), CreateApiKey.
   */
  precondition: (why: string) => new RequestRefusal("precondition", why, { reason: "MERCHANT_NOT_LIVE" }),
});
