import { createContextKey, type HandlerContext, type Interceptor } from "@connectrpc/connect";
import { signedOut } from "../domain/dashboard-session.js";
import type { CustomerPrincipal } from "../flows/customer-app-sign-in.js";
import { readCookie } from "./dashboard-session.js";

/** The signed-in customer of a CustomerAppService call. */
export const customerPrincipalKey = createContextKey<CustomerPrincipal | undefined>(undefined, {
  description: "customer",
});

export const customerAppService = "payments.v1.CustomerAppService";

/** The calls without a session: the two steps of signing in. */
export const customerSignInMethods: ReadonlySet<string> = new Set(["SendSignInCode", "VerifySignInCode"]);

/**
 * The customer app's cookies, scoped to its own path (/app) so neither the dashboard's nor the
 * hosted page's requests carry them. Over TLS they take the `__Secure-` prefix (`__Host-` would
 * need Path=/).
 */
export interface CustomerAppCookies {
  readonly secure: boolean;
  readonly session: string;
  readonly csrf: string;
}

export const customerAppPath = "/app";

export function customerAppCookies(secure: boolean): CustomerAppCookies {
  const prefix = secure ? "__Secure-" : "";
  return Object.freeze({ secure, session: `${prefix}furikomi_app_session`, csrf: `${prefix}furikomi_app_csrf` });
}

/** Set-Cookie values for a new session (until its absolute deadline), or clearing it. */
export function customerSessionCookieHeaders(
  cookies: CustomerAppCookies,
  session: { token: string; csrfToken: string; maxAgeSeconds: number } | undefined,
): string[] {
  const common = `Path=${customerAppPath}; SameSite=Strict${cookies.secure ? "; Secure" : ""}`;
  if (!session)
    return [`${cookies.session}=; ${common}; HttpOnly; Max-Age=0`, `${cookies.csrf}=; ${common}; Max-Age=0`];
  const maxAge = `Max-Age=${session.maxAgeSeconds}`;
  return [
    `${cookies.session}=${session.token}; ${common}; HttpOnly; ${maxAge}`,
    `${cookies.csrf}=${session.csrfToken}; ${common}; ${maxAge}`,
  ];
}

/**
 * CustomerAppService is authenticated by its session cookie (HttpOnly, SameSite=Strict, Path=/app)
 * and, on every call but the two sign-in steps, the x-csrf-token header matching the session's
 * token, as the dashboard is (docs/guide/customer-app.md#sessions). Other services pass through.
 */
export function createCustomerSessionInterceptor(
  authenticate: (sessionToken: string, csrfToken: string) => Promise<CustomerPrincipal>,
  cookies: CustomerAppCookies,
): Interceptor {
  return (next) => async (req) => {
    if (req.service.typeName !== customerAppService || customerSignInMethods.has(req.method.name)) return next(req);
    const token = readCookie(req.header.get("cookie") ?? "", cookies.session);
    if (!token) throw signedOut();
    req.contextValues.set(customerPrincipalKey, await authenticate(token, req.header.get("x-csrf-token") ?? ""));
    return next(req);
  };
}

export function customerPrincipalOf(context: HandlerContext): CustomerPrincipal {
  const principal = context.values.get(customerPrincipalKey);
  if (!principal) throw signedOut();
  return principal;
}
