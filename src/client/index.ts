export { createFurikomiClient, type FurikomiClient, type FurikomiClientOptions } from "./create-client.js";
export {
  FurikomiError,
  toFurikomiError,
  type FurikomiErrorType,
  type FurikomiPaymentErrorCode,
} from "./furikomi-error.js";
export { type RetryEvent, type RetryHooks } from "./retry-interceptor.js";
export { backoffDelayMs, defaultRetryPolicy, type RetryPolicy } from "./retry-policy.js";
export { verifyWebhook, WebhookVerificationError, type FurikomiWebhookEvent } from "./verify-webhook.js";
export { type RetryClass } from "../domain/retry-guidance.js";
