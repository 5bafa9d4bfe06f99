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
import { isApprovalClaimStale } from "../domain/payment-link.js";
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
    customerId: payment.link.customerId,
    amount: payment.charge.amount,
    reference: payment.charge.id,
    at: ctx.clock.now(),
  });
  return answer.ok ? { ok: true } : { ok: false, errorType: answer.errorType, message: answer.message };
}

/** After a KYC decision: the customer's approvals held in WAITING_EKYC go on (debit) or fail (denied). */
export async function resumeApprovalsWaitingForKyc(ctx: FlowContext, customerId: string): Promise<void> {
  for (const link of await findLinksWaitingForKyc(ctx.tx.db, customerId)) {
    const resumed = await changeOnSessionPayment(ctx, link.id, ["waiting_kyc"], () => ({
      linkState: "approving",
      events: [],
    }));
    if (resumed) await executeClaimedApproval(ctx, link.id);
  }
}
