import { jstDateOf, addDays } from "../domain/jst.js";
import { debitAmountOf, decideDuePeriod } from "../domain/subscription.js";
import { debitScheduleMessage, noticeDue } from "../domain/subscription-mail.js";
import { enqueueJobs, type JobOutcome } from "../storage/jobs.js";
import { findMerchant } from "../storage/merchants.js";
import { findPlan } from "../storage/plans.js";
import { findCustomer } from "../storage/status-queries.js";
import { insertNotices, type NoticeCursor, noticeCandidates } from "../storage/subscription-notices.js";
import { findSubscription } from "../storage/subscriptions.js";
import { billingRulesOf } from "./bank-rules.js";
import { mayCharge } from "./charging-allowed.js";
import type { FlowContext } from "./flow-context.js";

/** The furthest a plan's notice reaches ahead (CreatePlanRequest.notice_days ≤ 14). */
const noticeHorizonDays = 14;
const pageRows = 500;

/**
 * Queues each 振替予定のお知らせ that is due (docs/guide/recurring-billing.md#notices): one per
 * subscription and period, recorded with its "subscription-notice" job in one transaction (the
 * notices' primary key is the unique key: a crash or a second instance queues none twice).
 * Called by the cycle each turn; returns how many it queued.
 */
export async function queueDueNotices(ctx: FlowContext, now: Date): Promise<number> {
  const today = jstDateOf(now);
  let queued = 0;
  for (let after: NoticeCursor = { debitDate: "", subscriptionId: "" }; ; ) {
    const page = await noticeCandidates(ctx.tx.db, addDays(today, noticeHorizonDays), after, pageRows);
    if (page.length === 0) return queued;
    const last = page[page.length - 1];
    after = { debitDate: last.debitDate, subscriptionId: last.subscriptionId };
    const due = page.filter((candidate) => noticeDue(candidate.debitDate, candidate.noticeDays, today));
    const merchants = new Map(due.map((candidate) => [candidate.subscriptionId, candidate.merchantId]));
    queued += await ctx.tx.write(async (trx) => {
      const inserted = await insertNotices(trx, due, now);
      await enqueueJobs(
        trx,
        inserted.map((notice) => ({
          kind: "subscription-notice" as const,
          refId: `${merchants.get(notice.subscriptionId)}/${notice.subscriptionId}/${notice.period}`,
          runAt: now,
          now,
        })),
      );
      return inserted.length;
    });
  }
}

/**
 * Sends one notice: nothing when the subscription is no longer charged that period (paused,
 * cancelled, ended, moved on), the period costs nothing, or its merchant may not charge (the
 * cycle will pass the period uncharged). A failed send throws: the job runs again.
 */
export async function runSubscriptionNoticeJob(ctx: FlowContext, ref: string): Promise<JobOutcome> {
  const [merchantId, subscriptionId, period] = ref.split("/");
  const subscription = await findSubscription(ctx.tx.db, merchantId, subscriptionId);
  if (!subscription || !["active", "past_due"].includes(subscription.status) || subscription.nextPeriod !== period)
    return { done: true };
  const plan = await findPlan(ctx.tx.db, merchantId, subscription.planId);
  const customer = await findCustomer(ctx.tx.db, merchantId, subscription.customerId);
  if (!plan || !customer?.email) return { done: true };
  const decision = decideDuePeriod(subscription, plan, billingRulesOf(ctx.config), ctx.clock.now());
  if (decision.kind !== "charge" || !decision.debit) return { done: true };
  const merchant = await findMerchant(ctx.tx.db, merchantId);
  if (!mayCharge(ctx, merchant)) return { done: true };
  await ctx.notifier.send({
    merchantId,
    to: customer.email,
    ...debitScheduleMessage({
      merchantName: merchant.name,
      description: subscription.description,
      period,
      amount: debitAmountOf(decision.period),
      debitDate: decision.period.debitDate,
    }),
    sentAt: ctx.clock.now(),
  });
  return { done: true };
}
