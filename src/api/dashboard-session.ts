import { createContextKey, type HandlerContext, type Interceptor } from "@connectrpc/connect";
import { signedOut, totpEnrollmentRequired } from "../domain/dashboard-session.js";
import type { DashboardPrincipal } from "../flows/dashboard-auth.js";
import { merchantKey } from "./request-context.js";

/** The signed-in dashboard user of a DashboardService call. */
export const dashboardPrincipalKey = createContextKey<DashboardPrincipal | undefined>(undefined, {
  description: "dashboard user",
});

const dashboardService = "payments.v1.DashboardService";

/** The calls without a session: the two steps of signing in. */
const sessionless = new Set(["SignIn", "CompleteSignIn"]);

/** What a user may do while the merchant requires TOTP and they have not enrolled. */
const enrolmentOnly = new Set(["GetSession", "SignOut", "BeginTotpEnrollment", "ConfirmTotpEnrollment"]);

/** Cookie names: the `__Host-` prefix (Secure, Path=/, no Domain) when the page is served over TLS. */
export interface DashboardCookies {
  readonly secure: boolean;
  readonly session: string;
  readonly csrf: string;
}

export function dashboardCookies(secure: boolean): DashboardCookies {
  const prefix = secure ? "__Host-" : "";
  return Object.freeze({ secure, session: `${prefix}furikomi_session`, csrf: `${prefix}furikomi_csrf` });
}

/**
 * DashboardService is authenticated by its session cookie (HttpOnly, SameSite=Strict) and, on
 * every call but SignIn and CompleteSignIn, the x-csrf-token header matching the session's token. The page reads
 * the token from a second, script-readable cookie (double submit, checked against the server's
 * copy). The call's merchant is set as for an API-key call, so PaymentService and SandboxService
 * handlers can serve the dashboard too. While the merchant requires TOTP, a user without it may
 * only enrol. Other services pass through.
 */
export function createDashboardSessionInterceptor(
  authenticate: (sessionToken: string, csrfToken: string) => Promise<DashboardPrincipal>,
  cookies: DashboardCookies,
): Interceptor {
  return (next) => async (req) => {
    if (req.service.typeName !== dashboardService || sessionless.has(req.method.name)) return next(req);
    const token = readCookie(req.header.get("cookie") ?? "", cookies.session);
    if (!token) throw signedOut();
    const principal = await authenticate(token, req.header.get("x-csrf-token") ?? "");
    if (principal.merchantRequiresTotp && !principal.totpEnabled && !enrolmentOnly.has(req.method.name))
      throw totpEnrollmentRequired();
    req.contextValues.set(dashboardPrincipalKey, principal);
    req.contextValues.set(merchantKey, principal.merchant);
    return next(req);
  };
}

export function dashboardPrincipalOf(context: HandlerContext): DashboardPrincipal {
  const principal = context.values.get(dashboardPrincipalKey);
  if (!principal) throw signedOut();
  return principal;
}

function readCookie(header: string, name: string): string | undefined {
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return decodeURIComponent(part.slice(at + 1).trim());
  }
  return undefined;
}

/** Set-Cookie values for a new session (expiring with its absolute deadline), or clearing it. */
export function sessionCookieHeaders(
  cookies: DashboardCookies,
  session: { token: string; csrfToken: string; maxAgeSeconds: number } | undefined,
): string[] {
  const common = `Path=/; SameSite=Strict${cookies.secure ? "; Secure" : ""}`;
  if (!session)
    return [`${cookies.session}=; ${common}; HttpOnly; Max-Age=0`, `${cookies.csrf}=; ${common}; Max-Age=0`];
  const maxAge = `Max-Age=${session.maxAgeSeconds}`;
  return [
    `${cookies.session}=${session.token}; ${common}; HttpOnly; ${maxAge}`,
    `${cookies.csrf}=${session.csrfToken}; ${common}; ${maxAge}`,
  ];
}
