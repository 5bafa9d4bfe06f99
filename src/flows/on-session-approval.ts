import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { kycGate } from "../domain/kyc.js";
import {
  claimChanges,
  holdForKycChanges,
  settleChanges,
  triggeredFailureChanges,
  type ApprovalResult,
  type OnSessionPayment,
} from "../domain/on-session-settlement.js";
import { approvalClaimLeaseMs, isApprovalClaimStale, type PaymentLinkRecord } from "../domain/payment-link.js";
import { enqueueJob, type JobOutcome } from "../storage/jobs.js";
import type { Tx } from "../storage/transactor.js";
import { findLinksWaitingForKyc, findPaymentLinkById } from "../storage/payment-links.js";
import type { FlowContext } from "./flow-context.js";
import { changeOnSessionPayment, loadOnSessionPayment } from "./payment-link-transition.js";

/**
 * Claims the approval of an open, unexpired link (open → approving, in one transaction on the
 * locked row): of any number of concurrent ApprovePayment calls (double click, reload, two tabs)
 * exactly one wins and calls the bank.
 */
export function claimApproval(ctx: FlowContext, linkId: string): Promise<boolean> {
  return changeOnSessionPayment(ctx, linkId, ["open"], (payment, now) =>
    now.getTime() < payment.link.expiresAt.getTime() ? claimChanges(payment, now) : undefined,
  );
}

/**
 * A sandbox triggerError at approval: an open, unexpired link goes straight to failed with the
 * side effects (docs/reference/contract.md#approve-side-effects), in one transaction (so concurrent approvals fail it once); no bank call.
 */
export function failTriggeredApproval(ctx: FlowContext, linkId: string, errorType: ErrorType): Promise<boolean> {
  return changeOnSessionPayment(ctx, linkId, ["open"], (payment, now) =>
    now.getTime() < payment.link.expiresAt.getTime() ? triggeredFailureChanges(payment, errorType, now) : undefined,
  );
}

/** Takes over a claim whose claimant vanished (older than the lease); the bank reference keeps it one debit. */
export function reclaimStaleApproval(ctx: FlowContext, linkId: string): Promise<boolean> {
  return changeOnSessionPayment(ctx, linkId, ["approving"], (payment, now) =>
    isApprovalClaimStale(payment.link, now) ? { linkState: "approving", events: [] } : undefined,
  );
}

/**
 * Executes a claimed approval: KYC first (in review → the charge waits in WAITING_EKYC; denied
 * or never submitted → ERROR_TYPE_PAYMENT_CHARGE_REJECTED), then the debit through the bank
 * gateway with the trx-* id as reference, outside any transaction, then one transaction that
 * settles charge, contract and customer and writes the outbox events.
 */
export async function executeClaimedApproval(ctx: FlowContext, linkId: string): Promise<void> {
  // A KYC decision landing between the read and the write is seen under the lock: look again.
  for (let round = 0; round < 3; round++) {
    const link = await findPaymentLinkById(ctx.tx.db, linkId);
    if (!link || link.state !== "approving") return;
    const payment = await loadOnSessionPayment(ctx, link);
    const gate = kycGate(link.forceKyc, payment.customer.kycStatus);
    if (gate === "in_review") {
      const held = await changeOnSessionPayment(ctx, linkId, ["approving"], (current, now) =>
        kycGate(current.link.forceKyc, current.customer.kycStatus) === "in_review"
          ? holdForKycChanges(current, now)
          : undefined,
      );
      if (held) return;
      continue;
    }
    const result: ApprovalResult =
      gate === "rejected"
        ? { ok: false, errorType: ErrorType.PAYMENT_CHARGE_REJECTED }
        : await executePayment(ctx, payment);
    const settled = await changeOnSessionPayment(ctx, linkId, ["approving"], (current, now) =>
      gate === "rejected" && kycGate(current.link.forceKyc, current.customer.kycStatus) !== "rejected"
        ? undefined
        : settleChanges(current, result, now),
    );
    if (settled) return;
  }
}

async function executePayment(ctx: FlowContext, payment: OnSessionPayment): Promise<ApprovalResult> {
  if (!payment.charge) return { ok: true };
  const answer = await ctx.bank.debit({
    merchantId: payment.link.merchantId,
    // Set when the approval was claimed: the account approved on this link, or the contract's.
    accountId: payment.charge.bankAccountId ?? "",
    amount: payment.charge.amount,
    reference: payment.charge.id,
    at: ctx.clock.now(),
  });
  if (answer.ok || answer.scheduled) return { ok: true, scheduled: answer.scheduled };
  return { ok: false, errorType: answer.errorType, message: answer.message };
}

/**
 * In the transaction of a KYC decision: a "link-approval" job for each of the customer's
 * approvals held in WAITING_EKYC, so the approval goes on (debit) or fails (denied) even if the
 * process dies right after the decision's commit. `resumeApprovalsWaitingForKyc` runs them at
 * once; the job finds them done, or takes over what was left.
 */
export async function enqueueHeldApprovals(trx: Tx, customerId: string, now: Date): Promise<void> {
  for (const link of await findLinksWaitingForKyc(trx, customerId))
    await enqueueJob(trx, { kind: "link-approval", refId: link.id, runAt: now, now });
}

/** After a KYC decision: the customer's approvals held in WAITING_EKYC go on (debit) or fail (denied). */
export async function resumeApprovalsWaitingForKyc(ctx: FlowContext, customerId: string): Promise<void> {
  for (const link of await findLinksWaitingForKyc(ctx.tx.db, customerId)) await resumeHeldApproval(ctx, link.id);
}

async function resumeHeldApproval(ctx: FlowContext, linkId: string): Promise<void> {
  const resumed = await changeOnSessionPayment(ctx, linkId, ["waiting_kyc"], () => ({
    linkState: "approving",
    events: [],
  }));
  if (resumed) await executeClaimedApproval(ctx, linkId);
}

/**
 * The "link-approval" job (see enqueueHeldApprovals): resumes a held approval, or finishes one
 * whose claimant vanished once its claim is stale (the bank reference keeps it one debit).
 */
export async function runLinkApprovalJob(ctx: FlowContext, linkId: string): Promise<JobOutcome> {
  const link = await findPaymentLinkById(ctx.tx.db, linkId);
  if (link?.state === "waiting_kyc") await resumeHeldApproval(ctx, linkId);
  const current = await findPaymentLinkById(ctx.tx.db, linkId);
  return current?.state === "approving" ? finishStaleApproval(ctx, current) : { done: true };
}

/** An approval in progress: wait for its claim to lapse, then take it over and execute it. */
export async function finishStaleApproval(ctx: FlowContext, link: PaymentLinkRecord): Promise<JobOutcome> {
  if (!isApprovalClaimStale(link, ctx.clock.now()))
    return { retryAt: new Date(link.updatedAt.getTime() + approvalClaimLeaseMs) };
  if (await reclaimStaleApproval(ctx, link.id)) await executeClaimedApproval(ctx, link.id);
  return { done: true };
}
