import { currentTermsOf } from "./debit-timing.js";
import { chargeDebitDate } from "./status.js";
import { invalidTriggerMessage } from "../domain/error-trigger.js";
import {
  approvalBlocker,
  hasLapsed,
  isApprovalClaimStale,
  isLinkSettled,
  workflowCreatesContract,
} from "../domain/payment-link.js";
import type { FlowContext } from "./flow-context.js";
import {
  findPaymentLink,
  hostedRefusals,
  linkTrigger,
  merchantView,
  settledOutcome,
  type ApproveAnswer,
} from "./hosted-page.js";
import { expirePaymentLink } from "./link-expiry.js";
import { recordMandate, type ConsentEvidence } from "./mandates.js";
import {
  claimApproval,
  executeClaimedApproval,
  failTriggeredApproval,
  reclaimStaleApproval,
} from "./on-session-approval.js";
import { limits } from "../domain/limits.js";

/** The hosted page's last step (docs/guide/hosted-page.md); its errors follow flows/hosted-page.ts. */

// A concurrent approval is waited for up to this long (the simulated bank's latency is at most 30 s).
const { paymentLinkApprovalWaitPolls: approvalWaitPolls, paymentLinkApprovalPollMs: approvalPollMs } = limits;

/**
 * ApprovePayment: after the two-factor step (and the bank link for new accounts), executes the
 * payment once and answers where to send the customer. A double click, a reload or a second tab
 * finds the approval claimed, waits for it, and answers the same outcome; nothing is charged twice.
 */
export async function approvePayment(
  ctx: FlowContext,
  token: string,
  consent: ConsentEvidence = { termsVersion: "", clientAddress: "", userAgent: "" },
): Promise<ApproveAnswer> {
  let link = await findPaymentLink(ctx, token);
  if (!link) return { error: hostedRefusals.unknownLink() };
  const terms = currentTermsOf(ctx);
  if (consent.termsVersion && consent.termsVersion !== terms.version)
    return {
      error: hostedRefusals.badRequest(
        `the direct-debit terms have changed (now version ${terms.version}): read them again before approving`,
      ),
    };
  const trigger = await linkTrigger(ctx, link, "approve_payment");
  for (let poll = 0; poll < approvalWaitPolls; poll++) {
    if (link.state === "open") {
      const blocker = approvalBlocker(link);
      if (blocker) return { error: hostedRefusals.badRequest(blocker) };
      if (trigger.kind === "invalid") return { error: hostedRefusals.badRequest(invalidTriggerMessage(trigger.value)) };
      if (hasLapsed(link, ctx.clock.now())) await expirePaymentLink(ctx, link.id);
      else if (trigger.kind === "error") await failTriggeredApproval(ctx, link.id, trigger.errorType);
      else {
        await recordMandate(ctx, link, consent);
        if (await claimApproval(ctx, link.id)) await executeClaimedApproval(ctx, link.id);
      }
    } else if (link.state === "approving" && isApprovalClaimStale(link, ctx.clock.now())) {
      if (await reclaimStaleApproval(ctx, link.id)) await executeClaimedApproval(ctx, link.id);
    } else if (link.state === "approving") {
      await new Promise((resolve) => setTimeout(resolve, approvalPollMs));
    }
    const current = await settledOutcome(ctx, link.id);
    link = current.link;
    if (link.state === "expired")
      return { error: hostedRefusals.expired(await merchantView(ctx, link), current.redirectUrl) };
    // A triggered failure answers result.error, also to a repeated approval.
    if (trigger.kind === "error" && link.state === "failed")
      return { error: hostedRefusals.triggered(trigger.errorType, { redirectUrl: current.redirectUrl }) };
    if (isLinkSettled(link.state)) {
      const { outcome, redirectUrl } = current;
      const chargeId = link.chargeId ?? "";
      const debitDate = chargeId ? await chargeDebitDate(ctx, chargeId) : undefined;
      const contractId = workflowCreatesContract(link.workflow) ? (link.contractId ?? "") : "";
      return { success: { outcome, redirectUrl, chargeId, contractId, completedAt: link.completedAt, debitDate } };
    }
  }
  return { error: hostedRefusals.stillProcessing() };
}
