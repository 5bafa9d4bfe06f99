import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { PaymentFailure } from "./payment-failure.js";

/**
 * Where the hosted page may send the customer afterwards. The .proto already demands an absolute
 * http(s) URL; production also demands https, so a payment's outcome never travels in clear text.
 */
export function checkRedirectUrls(redirect: { successUrl: string; failureUrl: string }, httpsOnly: boolean): void {
  if (!httpsOnly) return;
  for (const [field, url] of [
    ["redirect.success_url", redirect.successUrl],
    ["redirect.failure_url", redirect.failureUrl],
  ] as const) {
    if (!url.startsWith("https://")) {
      throw new PaymentFailure(PaymentErrorCode.BAD_REQUEST, `${field}: must be an https URL in production`, {
        code: "ON_SESSION_PAYMENT_ERROR_CODE_VALIDATION_FAILED",
        field,
      });
    }
  }
}
