import { hashRecoveryCode, newRecoveryCodes, signedOut } from "../domain/dashboard-session.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { newTotpSecret, totpUri, verifyTotpCode } from "../domain/totp.js";
import {
  lockDashboardUser,
  replaceRecoveryCodes,
  setSessionTotpVerified,
  updateDashboardUser,
} from "../storage/dashboard-users.js";
import type { DashboardPrincipal } from "./dashboard-auth.js";
import type { FlowContext } from "./flow-context.js";

/** A dashboard user enrols TOTP (docs/guide/dashboard.md#two-step-verification-totp): a secret, then a first code. */

const totpAlreadyEnabled = () =>
  new RequestRefusal("precondition", "TOTP is already enabled for this user", { reason: "TOTP_ALREADY_ENABLED" });

/** Starts TOTP enrolment: a new secret, kept until a first code confirms it. */
export async function beginTotpEnrollment(
  ctx: FlowContext,
  principal: DashboardPrincipal,
): Promise<{ secret: string; uri: string }> {
  const secret = newTotpSecret();
  const now = ctx.clock.now().toISOString();
  await ctx.tx.write(async (trx) => {
    const user = await lockDashboardUser(ctx.tx, trx, principal.userId);
    if (!user) throw signedOut();
    if (user.totpEnabled) throw totpAlreadyEnabled();
    await updateDashboardUser(trx, user.id, { totpSecret: secret, updatedAt: new Date(now) });
  });
  return { secret, uri: totpUri(secret, principal.email) };
}

/**
 * Confirms enrolment with a first code from the app; that code's time-step is then used up, the
 * session counts as stepped up, and the ten recovery codes (stored hashed) are answered, once.
 */
export async function confirmTotpEnrollment(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  code: string,
): Promise<string[]> {
  const recoveryCodes = newRecoveryCodes();
  const now = ctx.clock.now();
  await ctx.tx.write(async (trx) => {
    const user = await lockDashboardUser(ctx.tx, trx, principal.userId);
    if (!user) throw signedOut();
    if (user.totpEnabled) throw totpAlreadyEnabled();
    if (!user.totpSecret)
      throw new RequestRefusal("precondition", "start the enrolment first (BeginTotpEnrollment)", {
        reason: "TOTP_ENROLLMENT_NOT_STARTED",
      });
    const verdict = verifyTotpCode(user.totpSecret, code, now, user.totpLastStep);
    if (!verdict.accepted) throw new RequestRefusal("invalid", "invalid TOTP code", { reason: "TOTP_CODE_INVALID" });
    await updateDashboardUser(trx, user.id, {
      totpEnabled: true,
      totpLastStep: verdict.step,
      totpFailures: 0,
      totpSetupRequired: false,
      updatedAt: now,
    });
    await ctx.audit?.(trx, { action: "totp.enrol", target: user.id });
    await replaceRecoveryCodes(trx, user.id, recoveryCodes.map(hashRecoveryCode), now.toISOString());
    await setSessionTotpVerified(trx, principal.sessionHash, now.toISOString());
  });
  return recoveryCodes;
}
