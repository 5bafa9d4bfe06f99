import { commandLine, type AuditAction } from "../domain/audit.js";
import { missingItems } from "../domain/onboarding-checklist.js";
import type { OnboardingState } from "../domain/onboarding.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { merchantIdsInState, saveChecklist } from "../storage/onboarding-checklists.js";
import { listTeamMembers } from "../storage/team.js";
import type { Tx } from "../storage/transactor.js";
import { recordAudit } from "./audit.js";
import type { FlowContext } from "./flow-context.js";
import { getChecklist, moveState } from "./onboarding.js";

/**
 * The operator's review of going-live checklists (`furikomi merchants review`,
 * docs/operations/merchant-review.md). Every decision is in the merchant's audit log, as done by
 * the command line.
 */
export async function reviewQueue(ctx: FlowContext) {
  const ids = await merchantIdsInState(ctx.tx.db, "in_review");
  return Promise.all(ids.map((id) => reviewOf(ctx, id)));
}

/** One merchant's checklist as the operator reads it, with its owners (who are told a send-back). */
export async function reviewOf(ctx: FlowContext, merchantId: string) {
  const checklist = await getChecklist(ctx, merchantId);
  return {
    merchant_id: merchantId,
    state: checklist.state,
    owners: await ownerEmails(ctx, merchantId),
    business: checklist.business ?? null,
    zengin_contract: checklist.zenginContract,
    webhook_answered: checklist.webhookAnswered,
    terms_version: checklist.termsVersion,
    terms_accepted_at: checklist.termsAcceptedAt?.toISOString() ?? null,
    missing: missingItems(checklist),
    sent_back_reason: checklist.sentBackReason,
  };
}

async function ownerEmails(ctx: FlowContext, merchantId: string): Promise<string[]> {
  return (await listTeamMembers(ctx.tx.db, merchantId)).filter((m) => m.role === "owner").map((m) => m.email);
}

/** A decision: the state moved from `from` to `to` with its audit entry, in one transaction. */
async function decide(
  ctx: FlowContext,
  merchantId: string,
  move: { from: OnboardingState | "any"; to: OnboardingState; action: AuditAction; reason?: string },
  alsoWrite: (trx: Tx) => Promise<void> = async () => {},
) {
  await moveState(ctx, merchantId, move.from, move.to, async (trx) => {
    await alsoWrite(trx);
    await recordAudit(
      ctx,
      trx,
      { merchantId, ...commandLine, userAgent: "furikomi merchants review" },
      { action: move.action, target: merchantId, details: move.reason ? { reason: move.reason } : {} },
    );
  });
  return reviewOf(ctx, merchantId);
}

/** Approves a submitted checklist: the merchant charges live money from its next request, and may create live keys. */
export async function approveMerchant(ctx: FlowContext, merchantId: string) {
  const review = await reviewOf(ctx, merchantId);
  // The checklist is read again: a contract removed or terms renewed since the submission sends it back instead.
  if (review.missing.length > 0)
    throw new RequestRefusal("precondition", `the checklist is not finished: ${review.missing.join(", ")}`, {
      reason: "ONBOARDING_INCOMPLETE",
    });
  return decide(ctx, merchantId, { from: "in_review", to: "complete", action: "onboarding.approve" }, (trx) =>
    saveChecklist(trx, merchantId, { sentBackReason: "" }, ctx.clock.now()),
  );
}

/** Sends a submitted checklist back with a reason: saved for the dashboard, and e-mailed to the owners. */
export async function sendBackMerchant(ctx: FlowContext, merchantId: string, reason: string) {
  const trimmed = requireReason(reason);
  const review = await decide(
    ctx,
    merchantId,
    { from: "in_review", to: "incomplete", action: "onboarding.send_back", reason: trimmed },
    (trx) => saveChecklist(trx, merchantId, { sentBackReason: trimmed }, ctx.clock.now()),
  );
  for (const to of review.owners)
    await ctx.notifier.send({
      merchantId,
      to,
      subject: "【furikomi】本番利用の審査項目が差し戻されました / Your going-live checklist was sent back",
      body: [
        "本番利用の審査項目が差し戻されました。理由:",
        trimmed,
        "ダッシュボードで修正し、もう一度申請してください。",
        "",
        "Your going-live checklist was sent back. The reason:",
        trimmed,
        "Correct it on the dashboard and submit it again.",
      ].join("\n"),
      sentAt: ctx.clock.now(),
    });
  return review;
}

/** Stops the merchant's charges everywhere (src/domain/onboarding.ts), whatever its state. */
export async function suspendMerchant(ctx: FlowContext, merchantId: string, reason: string) {
  return decide(ctx, merchantId, {
    from: "any",
    to: "suspended",
    action: "onboarding.suspend",
    reason: requireReason(reason),
  });
}

/** Lifts a suspension: the merchant is live again. */
export function reinstateMerchant(ctx: FlowContext, merchantId: string) {
  return decide(ctx, merchantId, { from: "suspended", to: "complete", action: "onboarding.reinstate" });
}

function requireReason(reason: string): string {
  const trimmed = reason.trim();
  if (!trimmed) throw new RequestRefusal("invalid", "--reason is required: it is told to the merchant and audited");
  return trimmed;
}
