import { KycStatus, PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { magicKycRejection } from "../domain/ekyc.js";
import { automaticKycDecision, withKycDecision, type KycReviewSettings } from "../domain/kyc.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import type { CustomerRecord } from "../domain/records.js";
import { enqueueJob, hasPendingJob, type JobOutcome } from "../storage/jobs.js";
import { findCustomerById, lockCustomer, saveCustomer } from "../storage/customers.js";
import { findKycReviewSettings, saveKycReviewSettings } from "../storage/sandbox-settings.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";
import { enqueueHeldApprovals, resumeApprovalsWaitingForKyc } from "./on-session-approval.js";
import { secondsMs } from "../domain/duration.js";

/**
 * Decides a customer's KYC (approve or deny, with a reason) and lets the approvals that waited
 * for it go on: approved → the debit runs; denied → the charge fails with
 * ERROR_TYPE_PAYMENT_CHARGE_REJECTED. The decision's transaction writes a job for each held
 * approval, so a crash after the commit still resumes it.
 */
export async function decideKyc(
  ctx: FlowContext,
  merchantId: string,
  customerId: string,
  decision: KycStatus.APPROVED | KycStatus.DENIED,
  reason: string,
): Promise<CustomerRecord> {
  const customer = await ctx.tx.write(async (trx) => {
    const current = await lockCustomer(ctx.tx, trx, merchantId, customerId);
    if (!current) throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `customer ${customerId} not found`);
    const now = ctx.clock.now();
    const decided = withKycDecision(current, decision, reason, now);
    await saveCustomer(trx, decided);
    await enqueueHeldApprovals(trx, customerId, now);
    return decided;
  });
  await resumeApprovalsWaitingForKyc(ctx, customerId);
  return (await findCustomerById(ctx.tx.db, customerId)) ?? customer;
}

/**
 * Sandbox only: after a KYC submission, the merchant's review mode decides it — at once (the
 * caller then calls `decideAutomatically`) or later through a "kyc-review" job: after the mode's
 * delay, or at `reviewedAt` when the submission named its eKYC method. Runs inside the
 * submission's transaction.
 */
export async function scheduleKycReview(
  ctx: FlowContext,
  trx: Tx,
  merchantId: string,
  customerId: string,
  now: Date,
  reviewedAt?: Date,
): Promise<"now" | "later" | "manual"> {
  const settings = await findKycReviewSettings(trx, merchantId);
  if (automaticKycDecision(settings.mode) === undefined) return "manual";
  if (settings.delaySeconds === 0 && !reviewedAt) return "now";
  const runAt = reviewedAt ?? new Date(now.getTime() + secondsMs(settings.delaySeconds));
  if (!(await hasPendingJob(trx, "kyc-review", customerId)))
    await enqueueJob(trx, { kind: "kyc-review", refId: customerId, runAt, now });
  return "later";
}

/**
 * Decides a KYC still in review as the merchant's automatic mode says (nothing in manual mode);
 * a customer e-mail kyc-<reason>@… is denied with that rejection reason (sandbox magic value).
 */
export async function decideAutomatically(ctx: FlowContext, merchantId: string, customerId: string): Promise<void> {
  const [settings, customer] = await Promise.all([
    findKycReviewSettings(ctx.tx.db, merchantId),
    findCustomerById(ctx.tx.db, customerId),
  ]);
  const automatic = automaticKycDecision(settings.mode);
  if (!automatic || customer?.kycStatus !== KycStatus.IN_REVIEW) return;
  const magicRejection = magicKycRejection(customer.email);
  const decision = magicRejection ? KycStatus.DENIED : automatic;
  const reason =
    magicRejection ?? (decision === KycStatus.DENIED ? "denied automatically (sandbox KYC review mode)" : "");
  await decideKyc(ctx, merchantId, customerId, decision, reason);
}

/** The "kyc-review" job: the delayed automatic decision. */
export async function runKycReviewJob(ctx: FlowContext, customerId: string): Promise<JobOutcome> {
  const customer = await findCustomerById(ctx.tx.db, customerId);
  if (customer) await decideAutomatically(ctx, customer.merchantId, customerId);
  return { done: true };
}

export async function configureKycReview(
  ctx: FlowContext,
  merchantId: string,
  settings: KycReviewSettings,
): Promise<KycReviewSettings> {
  await ctx.tx.write((trx) => saveKycReviewSettings(trx, merchantId, settings));
  return settings;
}
