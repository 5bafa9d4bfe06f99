import { createContextKey, type HandlerContext, type Interceptor } from "@connectrpc/connect";
import { roleAllows, roleForbidden } from "../domain/dashboard-role.js";
import { signedOut, totpEnrollmentRequired } from "../domain/dashboard-session.js";
import { accessOf } from "./dashboard-access.js";
import { requireStepUp, type DashboardPrincipal } from "../flows/dashboard-auth.js";
import type { FlowContext, MerchantPrincipal } from "../flows/flow-context.js";
import { merchantKey } from "./request-context.js";

/** The signed-in dashboard user of a DashboardService call. */
export const dashboardPrincipalKey = createContextKey<DashboardPrincipal | undefined>(undefined, {
  description: "dashboard user",
});

const dashboardService = "payments.v1.DashboardService";

/** What a user may do while they must enrol TOTP and have not. */
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
 * handlers can serve the dashboard too. The user's role must be at least the one the method
 * declares in the .proto (docs/guide/dashboard.md#roles); a method that declares none is refused
 * to everyone. While the merchant requires TOTP, or the user was invited or had their TOTP reset,
 * a user without it may only enrol. The methods that sign in need no session. Other services pass through.
 */
export function createDashboardSessionInterceptor(
  authenticate: (sessionToken: string, csrfToken: string) => Promise<DashboardPrincipal>,
  cookies: DashboardCookies,
): Interceptor {
  return (next) => async (req) => {
    if (req.service.typeName !== dashboardService) return next(req);
    const access = accessOf(req.method);
    if (access.kind === "sign_in") return next(req);
    const token = readCookie(req.header.get("cookie") ?? "", cookies.session);
    if (!token) throw signedOut();
    const principal = await authenticate(token, req.header.get("x-csrf-token") ?? "");
    if (access.kind !== "role" || !roleAllows(principal.role, access.role))
      throw roleForbidden(access.kind === "role" ? access.role : undefined);
    const mustEnrol = (principal.merchantRequiresTotp || principal.totpSetupRequired) && !principal.totpEnabled;
    if (mustEnrol && !enrolmentOnly.has(req.method.name)) throw totpEnrollmentRequired();
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

/** A cookie's value from a Cookie header. */
export function readCookie(header: string, name: string): string | undefined {
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

/** The merchant of the signed-in user making this call. */
export function dashboardMerchantOf(context: HandlerContext): MerchantPrincipal {
  return dashboardPrincipalOf(context).merchant;
}

/** A sensitive call: a user with TOTP needs a code from the last 5 minutes. Answers the merchant. */
export function steppedUpMerchant(ctx: FlowContext, context: HandlerContext): MerchantPrincipal {
  const principal = dashboardPrincipalOf(context);
  requireStepUp(ctx, principal);
  return principal.merchant;
}
