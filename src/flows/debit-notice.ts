import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { debitNoticeMessage } from "../domain/debit-notice.js";
import { enqueueJob, type JobOutcome } from "../storage/jobs.js";
import { findMerchant } from "../storage/merchants.js";
import { findPaymentLinkById } from "../storage/payment-links.js";
import { findCharge } from "../storage/status-queries.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";
import { chargeDebitDate } from "./status.js";

/**
 * The outcome e-mail of a hosted-page payment accepted for a debit date (docs/guide/hosted-page.md#when-the-account-is-debited):
 * a "debit-notice" job queued in the transaction that completes the link with its charge PENDING,
 * so it is sent even if the process dies right after that commit.
 */
export async function enqueueDebitNotice(trx: Tx, linkId: string, now: Date): Promise<void> {
  await enqueueJob(trx, { kind: "debit-notice", refId: linkId, runAt: now, now });
}

/**
 * Sends the notice: the charge's debit date (振替日) and amount to the e-mail the link was sent to.
 * Nothing is sent for a charge with no debit date (a bank that books at approval) or no longer
 * waiting for it (settled or cancelled meanwhile). A failed send throws: the job runs again.
 */
export async function runDebitNoticeJob(ctx: FlowContext, linkId: string): Promise<JobOutcome> {
  const link = await findPaymentLinkById(ctx.tx.db, linkId);
  const charge = link?.chargeId ? await findCharge(ctx.tx.db, link.merchantId, link.chargeId) : undefined;
  if (!link || charge?.status !== ChargeStatus.PENDING) return { done: true };
  const debitDate = await chargeDebitDate(ctx, charge.id);
  if (!debitDate) return { done: true };
  const merchant = await findMerchant(ctx.tx.db, link.merchantId);
  await ctx.notifier.send({
    merchantId: link.merchantId,
    to: link.email,
    ...debitNoticeMessage({
      merchantName: merchant?.name ?? "",
      chargeId: charge.id,
      amount: charge.amount,
      debitDate,
    }),
    sentAt: ctx.clock.now(),
  });
  return { done: true };
}
