import { createClient, ConnectError, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { DashboardService } from "../../../gen/payments/v1/dashboard_service_pb.js";
import { askForStepUp } from "./views/second-factor.js";

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

/**
 * A sensitive call refused for want of a recent code (STEP_UP_REQUIRED) asks for one in a dialog,
 * then is sent again; cancelled, the refusal stands.
 */
const stepUp: Interceptor = (next) => async (req) => {
  try {
    return await next(req);
  } catch (error) {
    const reason = ConnectError.from(error).findDetails(ErrorInfoSchema)[0]?.reason;
    if (reason !== "STEP_UP_REQUIRED") throw error;
    if (!(await askForStepUp(async (code) => void (await rpc.verifyStepUp({ code }))))) throw error;
    return next(req);
  }
};

/** DashboardService on this server, over the Connect protocol (JSON), with the session cookie. */
export const rpc = createClient(
  DashboardService,
  createConnectTransport({ baseUrl: location.origin, interceptors: [stepUp, csrf] }),
);
