import { createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { CustomerAppService } from "../../../gen/payments/v1/customer_app_service_pb.js";

/** The CSRF token the server set at sign-in in a script-readable cookie on /app (double submit). */
function csrfToken(): string {
  for (const part of document.cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === "furikomi_app_csrf" || name === "__Secure-furikomi_app_csrf")
      return decodeURIComponent(value.join("="));
  }
  return "";
}

const csrf: Interceptor = (next) => (req) => {
  const token = csrfToken();
  if (token) req.header.set("x-csrf-token", token);
  return next(req);
};

/**
 * CustomerAppService on this server, over the Connect protocol (JSON), under /app so that the
 * session cookie (Path=/app) goes with every call.
 */
export const rpc = createClient(
  CustomerAppService,
  createConnectTransport({ baseUrl: `${location.origin}/app`, interceptors: [csrf] }),
);
