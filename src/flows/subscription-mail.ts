import { decideAfterFailure } from "../domain/dunning.js";
import { debitFailureMessage } from "../domain/subscription-mail.js";
import { findPlan } from "../storage/plans.js";
import { findSubscription } from "../storage/subscriptions.js";
import { billingRulesOf } from "./bank-rules.js";
import type { JobOutcome } from "../storage/jobs.js";
import { findMerchant } from "../storage/merchants.js";
import { attemptsOfPeriod, findAttemptsOfCharges } from "../storage/subscription-attempts.js";
import { findCharge, findCustomer } from "../storage/status-queries.js";
import type { FlowContext } from "./flow-context.js";

/** The job's reference: the merchant and the failed charge. */
export function failureMailRef(merchantId: string, chargeId: string): string {
  return `${merchantId}/${chargeId}`;
}

/**
 * The customer's e-mail after a subscription debit failed (flows/subscription-dunning.ts queues it
 * in the settlement's transaction), through the notifier as every customer e-mail is sent. The
 * re-debit's date, if one was scheduled, is read from the period's next attempt. A failed send
 * throws: the job runs again.
 */
export async function runDebitFailureMailJob(ctx: FlowContext, ref: string): Promise<JobOutcome> {
  const [merchantId, chargeId] = ref.split("/");
  const charge = await findCharge(ctx.tx.db, merchantId, chargeId);
  const attempt = charge && (await findAttemptsOfCharges(ctx.tx.db, [charge.id])).get(charge.id);
  const customer = charge?.customerId ? await findCustomer(ctx.tx.db, merchantId, charge.customerId) : undefined;
  if (!charge || !attempt || !customer?.email) return { done: true };
  const retry = await nextAttemptDate(ctx, attempt.subscriptionId, attempt.period, attempt.attempt);
  const merchant = await findMerchant(ctx.tx.db, merchantId);
  const subscription = await findSubscription(ctx.tx.db, merchantId, attempt.subscriptionId);
  const plan = subscription && (await findPlan(ctx.tx.db, merchantId, subscription.planId));
  // The settlement's decision again, from the same plan (a plan's dunning never changes).
  const decision =
    plan &&
    decideAfterFailure({
      dunning: plan.dunning,
      errorType: charge.errorType,
      attempt: attempt.attempt,
      failedDebitDate: attempt.debitDate,
      rules: billingRulesOf(ctx.config),
      now: ctx.clock.now(),
    });
  await ctx.notifier.send({
    merchantId,
    to: customer.email,
    ...debitFailureMessage({
      merchantName: merchant?.name ?? "",
      description: charge.description,
      period: attempt.period,
      amount: charge.amount,
      debitDate: attempt.debitDate,
      errorType: charge.errorType,
      retryDebitDate: retry,
      carriedOver: decision?.kind === "carry",
    }),
    sentAt: ctx.clock.now(),
  });
  return { done: true };
}

async function nextAttemptDate(
  ctx: FlowContext,
  subscriptionId: string,
  period: string,
  attempt: number,
): Promise<string | undefined> {
  const attempts = await attemptsOfPeriod(ctx.tx.db, subscriptionId, period);
  return attempts.find((a) => a.attempt === attempt + 1)?.debitDate;
}
