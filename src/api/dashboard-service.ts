import type { ServiceImpl } from "@connectrpc/connect";
import type { DashboardService } from "../../gen/payments/v1/dashboard_service_pb.js";
import { authenticateSession } from "../flows/dashboard-auth.js";
import type { FlowContext } from "../flows/flow-context.js";
import { createBillingHandlers } from "./dashboard-billing.js";
import { createChargeHandlers } from "./dashboard-charges.js";
import { createCsvBatchHandlers } from "./dashboard-csv-batches.js";
import { createOnboardingHandlers } from "./dashboard-onboarding.js";
import { createSandboxHandlers } from "./dashboard-sandbox.js";
import { createDashboardSessionInterceptor, dashboardCookies, type DashboardCookies } from "./dashboard-session.js";
import { createSettingsHandlers } from "./dashboard-settings.js";
import { createSignInHandlers, sessionStarter } from "./dashboard-sign-in.js";
import { createSubscriptionImportHandlers } from "./dashboard-subscription-imports.js";
import { createTeamHandlers } from "./dashboard-team.js";
import { createZenginHandlers } from "./dashboard-zengin.js";

/** Cookies are Secure (and `__Host-`) when the server speaks TLS or sits behind an https public URL. */
export function dashboardCookiesFor(ctx: FlowContext): DashboardCookies {
  const tls = Boolean(ctx.config.tlsCertFile && ctx.config.tlsKeyFile) || ctx.config.publicBaseUrl.startsWith("https:");
  return dashboardCookies(tls);
}

/** The interceptor that authenticates DashboardService calls (wired by the composition root). */
export function createDashboardAuthInterceptor(ctx: FlowContext) {
  return createDashboardSessionInterceptor(
    (token, csrf) => authenticateSession(ctx, token, csrf),
    dashboardCookiesFor(ctx),
  );
}

/**
 * DashboardService (docs/guide/dashboard.md): decode, call a flow, encode. Its handlers come in
 * groups of one concern each (api/dashboard-*.ts), composed here.
 */
export function createDashboardService(ctx: FlowContext): ServiceImpl<typeof DashboardService> {
  const cookies = dashboardCookiesFor(ctx);
  const sessionStarted = sessionStarter(cookies);
  return {
    ...createSignInHandlers(ctx, cookies, sessionStarted),
    ...createChargeHandlers(ctx),
    ...createSettingsHandlers(ctx),
    ...createZenginHandlers(ctx),
    ...createTeamHandlers(ctx, sessionStarted),
    ...createSandboxHandlers(ctx),
    ...createCsvBatchHandlers(ctx),
    ...createBillingHandlers(ctx),
    ...createSubscriptionImportHandlers(ctx),
    ...createOnboardingHandlers(ctx),
  };
}
