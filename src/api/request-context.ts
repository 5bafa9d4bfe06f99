import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import { RequestRefusal } from "../domain/request-refusal.js";
import type { MerchantPrincipal } from "../flows/flow-context.js";
import type { IdempotencyScope } from "../flows/idempotency.js";

/**
 * The request context the api layer reads: filled in by the server's interceptors, read by the handlers.
 */

/** The authenticated merchant of a PaymentService or SandboxService call. */
export const merchantKey = createContextKey<MerchantPrincipal | undefined>(undefined, { description: "merchant" });

/** The request id, echoed in x-request-id and in every log line of the call. */
export const requestIdKey = createContextKey<string>("", { description: "request id" });

/** The idempotency key a create call runs under (set by the idempotency interceptor). */
export const idempotencyScopeKey = createContextKey<IdempotencyScope | undefined>(undefined, {
  description: "idempotency scope",
});

/** The merchant of an authenticated call (set by the server's auth interceptor). */
export function merchantOf(context: HandlerContext): MerchantPrincipal {
  const merchant = context.values.get(merchantKey);
  if (!merchant) throw new RequestRefusal("unauthenticated", "missing API key");
  return merchant;
}

/** The address of the client's connection (the socket's peer; a proxy in front is not looked through). */
export const clientAddressKey = createContextKey<string>("", { description: "client address" });
