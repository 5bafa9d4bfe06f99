import { userExists } from "../domain/invitation.js";
import { hashPassword, passwordProblem } from "../domain/password-hash.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { signUpCodeMessage, signUpCodeOwner } from "../domain/sign-up.js";
import { insertDashboardUser } from "../storage/dashboard-users.js";
import type { JobOutcome } from "../storage/jobs.js";
import { isUniqueViolation } from "../storage/transactor.js";
import { recordAudit } from "./audit.js";
import { newUser, startSession, type CallOrigin, type NewSession } from "./dashboard-auth.js";
import { checkEmailedCode, mailEmailedCode, sendEmailedCode } from "./emailed-code.js";
import type { FlowContext } from "./flow-context.js";
import { insertNewMerchant } from "./merchants.js";

/**
 * Sign-up, first step (docs/guide/getting-started.md#sign-up): a code to the e-mail, through the
 * sign-in code outbox. The same answer whatever the address; rate limited as sign-in.
 */
export function startSignUp(ctx: FlowContext, email: string): Promise<{ expiresAt: Date; resendAvailableAt: Date }> {
  return sendEmailedCode(ctx, { owner: signUpCodeOwner(email), email, mailJob: "sign-up-code-mail" });
}

/** The job behind StartSignUp: the address asked for it, so it is mailed (flows/emailed-code.ts). */
export function runSignUpCodeMailJob(ctx: FlowContext, codeId: string): Promise<JobOutcome> {
  return mailEmailedCode(ctx, codeId, { worthSending: async () => true, message: signUpCodeMessage });
}

export interface SignedUp {
  session: NewSession;
  /** The sandbox's first key; undefined where real money moves (a live key waits for the approval). */
  apiKey: string | undefined;
  webhookSecret: string;
}

/**
 * Sign-up, second step: in one transaction the e-mail's newest code is checked (a wrong one is
 * counted and committed) and, when right, the merchant (onboarding incomplete), its owner (TOTP
 * to enrol before anything else, as an invitee), its webhook secret and, in the sandbox, its
 * first API key are written. One e-mail is one dashboard user (a unique index): of parallel
 * sign-ups with one e-mail, one merchant is made and the others refused. Then the owner's session
 * starts.
 */
export async function completeSignUp(
  ctx: FlowContext,
  input: { email: string; code: string; password: string; businessName: string },
  origin: CallOrigin,
): Promise<{ verified: false; attemptsLeft: number } | ({ verified: true } & SignedUp)> {
  const problem = passwordProblem(input.password);
  if (problem) throw new RequestRefusal("invalid", problem, { reason: "PASSWORD_TOO_WEAK" });
  const passwordHash = await hashPassword(input.password, ctx.config.passwordHashCost);
  const email = input.email.trim();
  const now = ctx.clock.now();
  const outcome = await ctx.tx
    .write(async (trx) => {
      const check = await checkEmailedCode(ctx, trx, signUpCodeOwner(email), input.code);
      if (!check.verified) return { verified: false as const, attemptsLeft: check.attemptsLeft };
      const merchant = await insertNewMerchant(ctx, trx, {
        name: input.businessName.trim(),
        onboardingState: "incomplete",
        withApiKey: !ctx.mode.liveMoney,
      });
      const owner = newUser({
        merchantId: merchant.merchant_id,
        email,
        passwordHash,
        role: "owner",
        now,
        totpSetupRequired: true,
      });
      await insertDashboardUser(trx, owner);
      await recordAudit(
        ctx,
        trx,
        { merchantId: owner.merchantId, userId: owner.id, email, ...origin },
        { action: "merchant.sign_up", target: merchant.merchant_id, details: { name: merchant.name } },
      );
      return { verified: true as const, owner, merchant };
    })
    .catch((error: unknown) => {
      throw isUniqueViolation(error) ? userExists(email) : error;
    });
  if (!outcome.verified) return outcome;
  const session = await startSession(ctx, outcome.owner, now, null, origin, async () => {});
  return {
    verified: true,
    session,
    apiKey: outcome.merchant.api_key,
    webhookSecret: outcome.merchant.webhook_secret,
  };
}
