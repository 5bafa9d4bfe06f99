import { createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { DashboardService } from "../../../gen/payments/v1/dashboard_service_pb.js";

/** The CSRF token the server set in a script-readable cookie at sign-in (double submit). */
function csrfToken(): string {
  for (const part of document.cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === "furikomi_csrf" || name === "__Host-furikomi_csrf") return decodeURIComponent(value.join("="));
  }
  return "";
}

const csrf: Interceptor = (next) => (req) => {
  const token = csrfToken();
  if (token) req.header.set("x-csrf-token", token);
  return next(req);
};

/** DashboardService on this server, over the Connect protocol (JSON), with the session cookie. */
export const rpc = createClient(
  DashboardService,
  createConnectTransport({ baseUrl: location.origin, interceptors: [csrf] }),
);
