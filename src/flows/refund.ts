import {
  AsyncStatus,
  ChargeStatus,
  EventType,
  PaymentErrorCode,
  RefundStatus,
} from "../../gen/payments/v1/enums_pb.js";
import { isAsyncRequestFinal, transitionAsyncRequest } from "../domain/async-request.js";
import { lockAsyncRequest, saveAsyncRequestStatus } from "../storage/async-requests.js";
import { cancelItem, findItem } from "../storage/zengin.js";
import { newId } from "../domain/ids.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import type { ChargeRecord, Metadata, RefundRecord } from "../domain/records.js";
import {
  chargeAfterAcceptance,
  decideRefund,
  failRefund,
  newRefund,
  type RefundDecision,
  refundRetryAt,
  requireOwnedCharge,
  sandboxForcesRefundFailure,
  sandboxRefundFailureMessage,
  settleRefund,
} from "../domain/refund.js";
import { refundFailedContent, refundSucceededContent } from "../domain/webhook-content.js";
import { enqueueJob, type JobOutcome } from "../storage/jobs.js";
import { findMerchant } from "../storage/merchants.js";
import {
  findChargeById,
  findRefund,
  insertRefund,
  lockChargeOfMerchant,
  pendingRefundIdsOfMerchant,
  saveChargeRefundState,
  saveRefundOutcome,
} from "../storage/refunds.js";
import type { Tx } from "../storage/transactor.js";
import { bankRulesOfAccount } from "./bank-rules.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { bindIdempotentResource, type IdempotencyScope } from "./idempotency.js";
import { recordEvent } from "../storage/events.js";

export interface RefundRequestInput {
  chargeId: string;
  /** Absent: the whole charge. */
  amount?: number;
  reason: string;
  metadata: Metadata;
}

export interface RefundOutcome {
  refund: RefundRecord;
  /** The charge after the refund (its refunds are read with GetCharge). */
  charge: ChargeRecord;
}

/**
 * Refund (docs/reference/contract.md#refunds, docs/reference/contract.md#money-and-time). One transaction locks the charge, checks
 * the refundable remainder and either cancels the charge (full refund before the customer's
 * bank's cutoff on the charge's bank day: the booked debit is reversed in the same transaction,
 * REFUND_SUCCEEDED at once) or holds the
 * amount as pending and queues the bank transfer for the bank's settlement day. The
 * CHECK constraint charges_refunds_within_amount backs the remainder check. Under an idempotency
 * key the refund is bound to the key in the same transaction, so a retry after a crash answers
 * that refund instead of refunding again.
 */
export async function refundCharge(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  input: RefundRequestInput,
  idempotency?: IdempotencyScope,
): Promise<RefundOutcome> {
  const resumed = idempotency?.resumeResourceId
    ? await findRefund(ctx.tx.db, idempotency.resumeResourceId, merchant.id)
    : undefined;
  const resumedCharge = resumed && (await findChargeById(ctx.tx.db, resumed.chargeId));
  if (resumed && resumedCharge) return { refund: resumed, charge: resumedCharge };

  const now = ctx.clock.now();
  const outcome = await ctx.tx.write(async (trx) => {
    const charge = requireOwnedCharge(await lockChargeOfMerchant(ctx.tx, trx, merchant.id, input.chargeId));
    const zengin = ctx.config.bankConnector === "zengin";
    // A Zengin debit not yet in its request file is left out of it: the charge is cancelled, from
    // its acceptance on, whether or not its job has run (the debit is scheduled only under the
    // charge's lock, which this transaction holds: ports/zengin-bank.ts).
    const cancelledBeforeFile =
      zengin &&
      charge.status === ChargeStatus.PENDING &&
      (input.amount === undefined || input.amount === charge.amount) &&
      ((await cancelItem(trx, "zengin_debits", charge.id, now.toISOString())) ||
        !(await findItem(trx, "zengin_debits", charge.id)));
    const decision: RefundDecision = cancelledBeforeFile
      ? { kind: "cancellation", amount: charge.amount }
      : decideRefund(
          charge,
          input.amount,
          now,
          await bankRulesOfAccount(trx, ctx.config, charge.bankAccountId),
          !zengin,
        );
    const refund = newRefund({
      id: newId("rfd"),
      charge,
      decision,
      reason: input.reason,
      metadata: input.metadata,
      now,
    });
    const next = chargeAfterAcceptance(charge, decision, now);
    await saveChargeRefundState(trx, next);
    await insertRefund(trx, refund);
    if (decision.kind === "cancellation") {
      if (cancelledBeforeFile) await finishRequestOfCancelledCharge(ctx, trx, charge, now);
      await ctx.bank.reverseBooking(trx, { reference: charge.id, at: now });
      await recordEvent(trx, {
        merchantId: merchant.id,
        type: EventType.REFUND_SUCCEEDED,
        chargeId: charge.id,
        content: refundSucceededContent(next, refund, now),
        now,
      });
    } else {
      await enqueueJob(trx, { kind: "refund-settlement", refId: refund.id, runAt: decision.settleAfter, now });
    }
    await bindIdempotentResource(trx, idempotency, refund.id);
    await ctx.audit?.(trx, {
      action: "refund.create",
      target: charge.id,
      details: { refund_id: refund.id, amount: refund.amount, reason: input.reason ?? "" },
    });
    return { refund, charge: next };
  });
  // A transfer's settlement job is due later (the runner polls for it); a cancellation's event is due now.
  if (outcome.refund.cancellation) ctx.wake("events");
  return outcome;
}

/**
 * A Zengin debit cancelled before its file: its async request (RUNNING while the debit waited)
 * ends SUCCEEDED with the charge it settled, CANCELLED (docs/guide/direct-debit-files.md).
 */
async function finishRequestOfCancelledCharge(ctx: FlowContext, trx: Tx, charge: ChargeRecord, now: Date) {
  const request = charge.requestId ? await lockAsyncRequest(ctx.tx, trx, charge.requestId) : undefined;
  if (!request || isAsyncRequestFinal(request.status)) return;
  const running =
    request.status === AsyncStatus.RUNNING ? request : transitionAsyncRequest(request, AsyncStatus.RUNNING, now);
  await saveAsyncRequestStatus(trx, transitionAsyncRequest(running, AsyncStatus.SUCCEEDED, now));
}

/** GetRefund: another merchant's refund reads like a missing one. */
export async function getRefund(ctx: FlowContext, merchant: MerchantPrincipal, id: string): Promise<RefundRecord> {
  const refund = await findRefund(ctx.tx.db, id, merchant.id);
  if (!refund) throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `refund ${id} not found`);
  return refund;
}

/** `scheduled`: the transfer waits for its Zengin file; the refund stays PENDING until its result. */
type BankVerdict = { ok: true } | { ok: false; rootCause: string } | { retryAt: Date } | { scheduled: true };

/**
 * Settles one pending refund: the bank transfer (outside any transaction; the rfd-* id is the
 * bank-side reference, so it is booked once however often this runs), then in one transaction the
 * refund's outcome, the charge's amounts and status, and the REFUND_SUCCEEDED or REFUND_FAILED
 * event. A refund no longer pending is left as it is. Returns when to try again if the bank was
 * under maintenance. `forcedFailure` (sandbox) fails it with that root cause without the bank.
 */
export async function settlePendingRefund(
  ctx: FlowContext,
  refundId: string,
  attempt = 1,
  forcedFailure?: string,
): Promise<JobOutcome> {
  const refund = await findRefund(ctx.tx.db, refundId);
  if (!refund) return { done: true };
  if (refund.status !== RefundStatus.PENDING) {
    // A booking that landed after the failure was recorded (its caller died before it could see it).
    if (refund.status === RefundStatus.FAILED) await ctx.tx.write((trx) => reverseFailedRefund(ctx, trx, refund.id));
    return { done: true };
  }
  const charge = await findChargeById(ctx.tx.db, refund.chargeId);
  if (!charge) return { done: true };
  const verdict = await askBank(ctx, charge, refund, attempt, forcedFailure);
  if ("retryAt" in verdict) return { retryAt: verdict.retryAt };
  if ("scheduled" in verdict) return { done: true };

  const now = ctx.clock.now();
  const recorded = await ctx.tx.write((trx) => recordRefundVerdict(ctx, trx, refund, verdict, now));
  if (recorded) ctx.wake("events");
  return { done: true };
}

/**
 * Inside the caller's transaction: the pending refund's outcome, the charge's amounts and status,
 * and the REFUND_SUCCEEDED or REFUND_FAILED event. False when the refund was settled meanwhile
 * (a sandbox SettleRefunds and the job raced, or a result file imported twice): the first outcome
 * stands, and the ledger is made to match it (a credit booked for a refund recorded as failed is reversed).
 */
export async function recordRefundVerdict(
  ctx: FlowContext,
  trx: Tx,
  refund: { id: string; merchantId: string; chargeId: string },
  verdict: { ok: true } | { ok: false; rootCause: string },
  now: Date,
): Promise<boolean> {
  const locked = await lockChargeOfMerchant(ctx.tx, trx, refund.merchantId, refund.chargeId);
  const current = await findRefund(trx, refund.id);
  if (!locked || current?.status !== RefundStatus.PENDING) {
    if (current?.status === RefundStatus.FAILED) await reverseFailedRefund(ctx, trx, refund.id);
    return false;
  }
  const result = verdict.ok ? settleRefund(locked, current, now) : failRefund(locked, current, verdict.rootCause, now);
  // A failure recorded without the bank (forced) while a booking landed: the ledger follows the record.
  if (!verdict.ok) await reverseFailedRefund(ctx, trx, refund.id);
  await saveChargeRefundState(trx, result.charge);
  await saveRefundOutcome(trx, result.refund);
  const merchantName = (await findMerchant(trx, refund.merchantId))?.name ?? "";
  await recordEvent(trx, {
    merchantId: refund.merchantId,
    type: verdict.ok ? EventType.REFUND_SUCCEEDED : EventType.REFUND_FAILED,
    chargeId: locked.id,
    content: verdict.ok
      ? refundSucceededContent(result.charge, result.refund, now)
      : refundFailedContent(result.charge, result.refund, merchantName),
    now,
  });
  return true;
}

/** A refund recorded as failed credits nothing: any booking under its reference is reversed. */
function reverseFailedRefund(ctx: FlowContext, trx: Tx, refundId: string): Promise<void> {
  return ctx.bank.reverseBooking(trx, { reference: refundId, at: ctx.clock.now() });
}

async function askBank(
  ctx: FlowContext,
  charge: ChargeRecord,
  refund: RefundRecord,
  attempt: number,
  forcedFailure?: string,
): Promise<BankVerdict> {
  if (forcedFailure !== undefined) return { ok: false, rootCause: forcedFailure };
  // With the Zengin file exchange the simulated bank fails it from its transfer file instead.
  if (ctx.mode.sandboxTools && ctx.config.bankConnector === "simulated" && sandboxForcesRefundFailure(refund.metadata))
    return { ok: false, rootCause: sandboxRefundFailureMessage };
  // Back to the account the charge was paid from, whichever account the customer uses now.
  if (!charge.bankAccountId) return { ok: false, rootCause: "the charge has no bank account to refund to" };
  const result = await ctx.bank.refund({
    merchantId: charge.merchantId,
    accountId: charge.bankAccountId,
    amount: refund.amount,
    reference: refund.id,
    at: ctx.clock.now(),
  });
  if (result.ok) return { ok: true };
  if (result.scheduled) return { scheduled: true };
  if (result.retryable) return { retryAt: result.retryAfter ?? refundRetryAt(ctx.clock.now(), attempt) };
  return { ok: false, rootCause: result.message };
}

/**
 * Sandbox SettleRefunds: settles (or fails) the merchant's pending refunds now, through the same
 * settlement as the worker. A refund whose bank is under maintenance stays pending. Returns the
 * refunds as they stand afterwards.
 */
export async function settleRefundsNow(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  request: { refundId: string; fail: boolean; failureMessage: string },
): Promise<RefundRecord[]> {
  const ids = request.refundId
    ? [(await getRefund(ctx, merchant, request.refundId)).id]
    : await pendingRefundIdsOfMerchant(ctx.tx.db, merchant.id);
  const forcedFailure = request.fail ? request.failureMessage || sandboxRefundFailureMessage : undefined;
  const settled: RefundRecord[] = [];
  for (const id of ids) {
    if (forcedFailure !== undefined && ctx.config.bankConnector === "zengin") {
      // A transfer already in a file is the bank's to answer: failing it here would pay it twice.
      if (!(await failZenginRefund(ctx, id, forcedFailure)) && request.refundId)
        throw new RequestRefusal(
          "precondition",
          `refund ${id} is in a 総合振込 (種別 21) file sent to the bank: only the bank's answer settles it, it cannot be failed`,
          { reason: "REFUND_IN_SENT_FILE" },
        );
    } else await settlePendingRefund(ctx, id, 1, forcedFailure);
    settled.push(await getRefund(ctx, merchant, id));
  }
  return settled;
}

/**
 * Sandbox SettleRefunds{fail} under the Zengin connector (docs/guide/refunds.md): in
 * one transaction, under the charge's lock (the one a transfer is scheduled under, ports/zengin-bank.ts),
 * the refund's transfer is taken out of the queue and the refund fails — or, when the transfer is
 * already in a 種別 21 file, nothing changes and false is answered. True when it failed or was no
 * longer pending.
 */
async function failZenginRefund(ctx: FlowContext, refundId: string, rootCause: string): Promise<boolean> {
  const now = ctx.clock.now();
  const outcome = await ctx.tx.write(async (trx) => {
    const refund = await findRefund(trx, refundId);
    if (!refund) return "settled";
    await lockChargeOfMerchant(ctx.tx, trx, refund.merchantId, refund.chargeId);
    const pending = await findRefund(trx, refundId);
    if (pending?.status !== RefundStatus.PENDING) return "settled";
    const withdrawn =
      (await cancelItem(trx, "zengin_transfers", refundId, now.toISOString())) ||
      !(await findItem(trx, "zengin_transfers", refundId));
    if (!withdrawn) return "in-file";
    await recordRefundVerdict(ctx, trx, pending, { ok: false, rootCause }, now);
    return "failed";
  });
  if (outcome === "failed") ctx.wake("events");
  return outcome !== "in-file";
}
