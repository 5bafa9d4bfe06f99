import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import QRCode from "qrcode";
import {
  DashboardUserSchema,
  type DashboardService,
  type DashboardUser,
} from "../../gen/payments/v1/dashboard_service_pb.js";
import { roleEnum } from "../domain/dashboard-role.js";
import { sessionLimits } from "../domain/dashboard-session.js";
import {
  completeSignIn,
  setTotpRequirement,
  signIn,
  signOut,
  verifyStepUp,
  type DashboardPrincipal,
  type NewSession,
} from "../flows/dashboard-auth.js";
import type { FlowContext } from "../flows/flow-context.js";
import { beginTotpEnrollment, confirmTotpEnrollment } from "../flows/totp-enrollment.js";
import { completeSignUp, startSignUp } from "../flows/sign-up.js";
import { dashboardPrincipalOf, sessionCookieHeaders, type DashboardCookies } from "./dashboard-session.js";
import { auditedContext, callOrigin } from "./dashboard-team.js";

type SignInMethods =
  | "signIn"
  | "completeSignIn"
  | "signOut"
  | "getSession"
  | "beginTotpEnrollment"
  | "confirmTotpEnrollment"
  | "verifyStepUp"
  | "setTotpRequirement"
  | "startSignUp"
  | "completeSignUp";

/** What a started session answers: the user and the CSRF token (its cookies set on the way). */
export type SessionStarted = (
  session: NewSession,
  context: HandlerContext,
) => { user: DashboardUser; csrfToken: string };

/** Sets a new session's cookies; answers the user and the CSRF token. */
export function sessionStarter(cookies: DashboardCookies): SessionStarted {
  return (session, context) => {
    const maxAgeSeconds = Math.floor(sessionLimits.absoluteMs / 1000);
    for (const cookie of sessionCookieHeaders(cookies, {
      token: session.sessionToken,
      csrfToken: session.principal.csrfToken,
      maxAgeSeconds,
    })) {
      context.responseHeader.append("set-cookie", cookie);
    }
    return { user: encodeUser(session.principal), csrfToken: session.principal.csrfToken };
  };
}

/** Sign-in, sign-out, the session and TOTP (docs/guide/dashboard.md#signing-in); spread into DashboardService. */
export function createSignInHandlers(
  ctx: FlowContext,
  cookies: DashboardCookies,
  sessionStarted: SessionStarted,
): Pick<ServiceImpl<typeof DashboardService>, SignInMethods> {
  const audited = (context: HandlerContext) => auditedContext(ctx, context);
  return {
    async signIn(req, context) {
      const outcome = await signIn(ctx, { email: req.email, password: req.password }, callOrigin(context));
      if (outcome.totpRequired) return { totpRequired: true, signInToken: outcome.signInToken };
      return sessionStarted(outcome.session, context);
    },
    async startSignUp(req) {
      const sent = await startSignUp(ctx, req.email);
      return {
        expiresAt: timestampFromDate(sent.expiresAt),
        resendAvailableAt: timestampFromDate(sent.resendAvailableAt),
      };
    },
    async completeSignUp(req, context) {
      const outcome = await completeSignUp(
        ctx,
        { email: req.email, code: req.code, password: req.password, businessName: req.businessName },
        callOrigin(context),
      );
      if (!outcome.verified) return { verified: false, attemptsLeft: outcome.attemptsLeft };
      return {
        ...sessionStarted(outcome.session, context),
        verified: true,
        apiKey: outcome.apiKey ?? "",
        webhookSecret: outcome.webhookSecret,
      };
    },
    async completeSignIn(req, context) {
      return sessionStarted(
        await completeSignIn(ctx, { signInToken: req.signInToken, code: req.code }, callOrigin(context)),
        context,
      );
    },
    async signOut(_req, context) {
      await signOut(ctx, dashboardPrincipalOf(context));
      for (const cookie of sessionCookieHeaders(cookies, undefined))
        context.responseHeader.append("set-cookie", cookie);
      return {};
    },
    async getSession(_req, context) {
      const principal = dashboardPrincipalOf(context);
      return { user: encodeUser(principal), csrfToken: principal.csrfToken };
    },
    async beginTotpEnrollment(_req, context) {
      const { secret, uri } = await beginTotpEnrollment(ctx, dashboardPrincipalOf(context));
      return {
        secret,
        otpauthUri: uri,
        qrSvg: await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 }),
      };
    },
    async confirmTotpEnrollment(req, context) {
      const recoveryCodes = await confirmTotpEnrollment(audited(context), dashboardPrincipalOf(context), req.code);
      return { totpEnabled: true, recoveryCodes };
    },
    async verifyStepUp(req, context) {
      const validUntil = await verifyStepUp(ctx, dashboardPrincipalOf(context), req.code, callOrigin(context));
      return { validUntil: timestampFromDate(validUntil) };
    },
    async setTotpRequirement(req, context) {
      await setTotpRequirement(audited(context), dashboardPrincipalOf(context), req.required);
      return { required: req.required };
    },
  };
}

export function encodeUser(principal: DashboardPrincipal): DashboardUser {
  return create(DashboardUserSchema, {
    email: principal.email,
    merchantId: principal.merchant.id,
    merchantName: principal.merchant.name,
    totpEnabled: principal.totpEnabled,
    merchantRequiresTotp: principal.merchantRequiresTotp,
    role: roleEnum(principal.role),
    totpSetupRequired: principal.totpSetupRequired,
  });
}
