import { expiryChanges } from "../domain/on-session-settlement.js";
import type { JobOutcome } from "../storage/jobs.js";
import { findPaymentLinkById } from "../storage/payment-links.js";
import type { FlowContext } from "./flow-context.js";
import { finishStaleApproval } from "./on-session-approval.js";
import { changeOnSessionPayment } from "./payment-link-transition.js";

/**
 * docs/reference/contract.md#link-expiry: a link that lapses unpaid fails its charge with ERROR_TYPE_PAYMENT_LINK_EXPIRED (a
 * CHARGE_FAIL event) and its contract becomes EXPIRED. Only an open link expires, and only once
 * its time has come (or at once with `now`, for SandboxService.ExpirePaymentLink). True when
 * this call expired it.
 */
export function expirePaymentLink(ctx: FlowContext, linkId: string, options: { now?: boolean } = {}): Promise<boolean> {
  return changeOnSessionPayment(ctx, linkId, ["open"], (payment, now) =>
    options.now || now.getTime() >= payment.link.expiresAt.getTime() ? expiryChanges(payment, now) : undefined,
  );
}

/**
 * The "link-expiry" job, queued at creation to run at expiresAt. It also finishes an approval
 * whose claimant vanished (the process died between the bank call and the commit).
 */
export async function runLinkExpiryJob(ctx: FlowContext, linkId: string): Promise<JobOutcome> {
  const link = await findPaymentLinkById(ctx.tx.db, linkId);
  if (!link) return { done: true };
  const now = ctx.clock.now();
  if (link.state === "open") {
    if (now.getTime() < link.expiresAt.getTime()) return { retryAt: link.expiresAt };
    await expirePaymentLink(ctx, linkId);
    return { done: true };
  }
  if (link.state === "approving") return finishStaleApproval(ctx, link);
  return { done: true };
}
