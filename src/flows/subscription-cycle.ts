import type { MerchantRecord } from "../domain/merchant.js";
import { ApiSource, ContractStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import { newId } from "../domain/ids.js";
import { addDays, type JstDate, jstDateOf } from "../domain/jst.js";
import { newOffSessionCharge } from "../domain/off-session-charge.js";
import type { PlanRecord } from "../domain/plan.js";
import type { ChargeRecord } from "../domain/records.js";
import {
  type BillingRules,
  debitAmountOf,
  decideDuePeriod,
  endSubscription,
  type SubscriptionPeriodRecord,
  type SubscriptionRecord,
} from "../domain/subscription.js";
import { subscriptionEventContent } from "../domain/webhook-content.js";
import { insertCharges } from "../storage/charges.js";
import { type ContractState, findContractStatesByIds } from "../storage/contracts.js";
import { recordEvents } from "../storage/events.js";
import { enqueueJobs, type JobOutcome } from "../storage/jobs.js";
import { findMerchant } from "../storage/merchants.js";
import { lockPlans } from "../storage/plans.js";
import {
  dueDebitDates,
  insertFirstAttempts,
  insertPeriods,
  lockDueSubscriptions,
  periodKey,
  saveSubscriptionSchedules,
} from "../storage/subscriptions.js";
import type { Tx } from "../storage/transactor.js";
import { billingRulesOf } from "./bank-rules.js";
import { mayCharge } from "./charging-allowed.js";
import { queueDueNotices } from "./subscription-notices.js";
import type { FlowContext } from "./flow-context.js";
import { limits } from "../domain/limits.js";

export interface SubscriptionCycleReport {
  /** Charges created (one per subscription and period). */
  charged: number;
  /** Periods recorded without a charge (a final amount of 0). */
  free: number;
  /** Subscriptions ended (end period passed, contract no longer active). */
  ended: number;
}

/** Debit dates looked ahead for: a Zengin cutoff falls at most a few business days before its date. */
const lookAheadDays = 10;

/**
 * The cycle (docs/guide/recurring-billing.md#the-cycle): for every debit date whose charges are due
 * (billingRulesOf: the Zengin file cutoff, or the date itself for the simulated bank), each active
 * subscription's period is recorded and charged, a page of subscriptions per transaction. The
 * period's primary key makes the insert-or-ignore the guard: a crash or a second instance
 * charges no period twice, and a subscription moves to its next period in the same transaction
 * as its charge, so none is skipped. Under Zengin this runs in the file cycle before the files
 * are written; the charges then travel as any off-session charge does.
 */
export async function chargeDueSubscriptions(ctx: FlowContext): Promise<SubscriptionCycleReport> {
  const report: SubscriptionCycleReport = { charged: 0, free: 0, ended: 0 };
  const now = ctx.clock.now();
  const rules = billingRulesOf(ctx.config);
  const notices = await queueDueNotices(ctx, now);
  // Again until nothing is due: a clock moved months ahead reaches the later periods too.
  for (let found = true; found; ) {
    found = false;
    for (const date of await dueDebitDates(ctx.tx.db, addDays(jstDateOf(now), lookAheadDays))) {
      if (rules.chargeMomentOf(date) > now) continue;
      while ((await ctx.tx.write((trx) => chargePage(ctx, trx, date, rules, now, report))) > 0) found = true;
    }
  }
  if (report.charged + report.free + report.ended + notices > 0) {
    ctx.wake("events");
    ctx.wake("jobs");
  }
  return report;
}

/** The "subscription-cycle" job (simulated bank; under Zengin the file cycle runs it): one turn, then again. */
export async function runSubscriptionCycleJob(ctx: FlowContext): Promise<JobOutcome> {
  await chargeDueSubscriptions(ctx);
  return { retryAt: new Date(ctx.clock.now().getTime() + limits.subscriptionCycleIntervalMs) };
}

/** What one subscription of a page becomes. */
interface Outcome {
  readonly subscription: SubscriptionRecord;
  readonly period?: SubscriptionPeriodRecord;
  readonly charge?: ChargeRecord;
  readonly event: EventType;
}

/** One page of the date's due subscriptions, in the caller's transaction: how many it took. */
async function chargePage(
  ctx: FlowContext,
  trx: Tx,
  date: JstDate,
  rules: BillingRules,
  now: Date,
  report: SubscriptionCycleReport,
): Promise<number> {
  const due = await lockDueSubscriptions(ctx.tx, trx, date);
  if (due.length === 0) return 0;
  const plans = await lockPlans(ctx.tx, trx, [...new Set(due.map((subscription) => subscription.planId))]);
  const contracts = await findContractStatesByIds(
    trx,
    due.map((subscription) => subscription.contractId),
  );
  const merchants = new Map<string, MerchantRecord | undefined>();
  for (const merchantId of new Set(due.map((subscription) => subscription.merchantId)))
    merchants.set(merchantId, await findMerchant(trx, merchantId));
  const outcomes = due.map((subscription) => {
    const blocked = !mayCharge(ctx, merchants.get(subscription.merchantId));
    const plan = plans.get(subscription.planId)!;
    return outcomeOf(subscription, plan, contracts.get(subscription.contractId), blocked, rules, now);
  });
  const periods = outcomes.flatMap((outcome) => (outcome.period ? [outcome.period] : []));
  const planIds = new Map(due.map((subscription) => [subscription.id, subscription.planId]));
  const inserted = await insertPeriods(trx, periods, planIds);
  // A period recorded by another transaction is not charged again (its subscription still moves on).
  const fresh = outcomes.filter(
    (outcome) => !outcome.period || inserted.has(periodKey(outcome.period.subscriptionId, outcome.period.period)),
  );
  const charges = fresh.flatMap((outcome) => (outcome.charge ? [outcome.charge] : []));
  await insertCharges(trx, charges);
  await insertFirstAttempts(
    trx,
    fresh.flatMap((outcome) => (outcome.charge && outcome.period ? [outcome.period] : [])),
  );
  await scheduleDebits(ctx, trx, charges, date, now, now);
  await recordOutcomeEvents(trx, fresh, merchants, now);
  await saveSubscriptionSchedules(
    trx,
    outcomes.map((outcome) => outcome.subscription),
  );
  report.charged += charges.length;
  report.free += fresh.filter((outcome) => outcome.period && !outcome.charge).length;
  report.ended += fresh.filter((outcome) => outcome.event === EventType.SUBSCRIPTION_CANCELLED).length;
  return due.length;
}

/** The domain's decision for one subscription, with the charge it creates. */
function outcomeOf(
  subscription: SubscriptionRecord,
  plan: PlanRecord,
  contract: ContractState | undefined,
  merchantBlocked: boolean,
  rules: BillingRules,
  now: Date,
): Outcome {
  const ended = (status: "cancelled" | "ended", reason: "end_period" | "contract_deactivated") => ({
    subscription: endSubscription(subscription, status, reason, now),
    event: EventType.SUBSCRIPTION_CANCELLED,
  });
  // Its contract ended without ending it (flows/subscription-endings.ts ends them): never charged.
  if (contract?.status !== ContractStatus.ACTIVATED || !contract.bankAccountId)
    return ended("cancelled", "contract_deactivated");
  const decision = decideDuePeriod(subscription, plan, rules, now);
  if (decision.kind === "end") return ended(subscription.cancelAtPeriodEnd ? "cancelled" : "ended", decision.reason);
  // A merchant that may not charge (suspended, or not approved where real money moves) charges no
  // one: the period passes uncharged, as a paused subscription's does
  // (docs/guide/recurring-billing.md#the-cycle).
  if (merchantBlocked)
    return {
      subscription: {
        ...subscription,
        nextPeriod: decision.next.period,
        nextDebitDate: decision.next.debitDate,
        updatedAt: now,
      },
      event: EventType.UNSPECIFIED,
    };
  const next = {
    ...subscription,
    // A carried amount (合算) is in this period's charge now.
    carry: [],
    lastPeriod: decision.period.period,
    nextPeriod: decision.next.period,
    nextDebitDate: decision.next.debitDate,
    updatedAt: now,
  };
  if (!decision.debit) return { subscription: next, period: decision.period, event: EventType.UNSPECIFIED };
  const charge = newOffSessionCharge(
    {
      id: newId("trx"),
      merchantId: subscription.merchantId,
      customerId: subscription.customerId,
      contractId: contract.id,
      bankAccountId: contract.bankAccountId,
      requestId: null,
      apiSource: ApiSource.OFF_SESSION_ASYNC,
      amount: debitAmountOf(decision.period),
      discount: decision.period.amounts.discount,
      description: subscription.description,
      metadata: {
        ...subscription.metadata,
        subscription_id: subscription.id,
        subscription_period: decision.period.period,
      },
    },
    now,
  );
  return {
    subscription: next,
    period: { ...decision.period, chargeId: charge.id },
    charge,
    event: EventType.SUBSCRIPTION_PAYMENT_SCHEDULED,
  };
}

/**
 * The charges go to the bank as off-session charges do: a bank of files schedules each for this
 * debit date's file now (a refusal is left to the charge's job, which fails it with the reason);
 * the simulated bank's debits run as the charges' jobs, at `debitAt` (a re-debit's date).
 */
export async function scheduleDebits(
  ctx: FlowContext,
  trx: Tx,
  charges: readonly ChargeRecord[],
  debitDate: JstDate,
  debitAt: Date,
  now: Date,
): Promise<void> {
  let jobs: { charge: ChargeRecord; runAt: Date }[] = charges.map((charge) => ({ charge, runAt: debitAt }));
  if (ctx.bank.scheduleDebits) {
    const answers = await ctx.bank.scheduleDebits(
      trx,
      charges.map((charge) => ({
        merchantId: charge.merchantId,
        accountId: charge.bankAccountId ?? "",
        amount: charge.amount,
        reference: charge.id,
        at: now,
        debitDate,
      })),
    );
    jobs = charges.filter((_, index) => !answers[index].scheduled).map((charge) => ({ charge, runAt: now }));
  }
  await enqueueJobs(
    trx,
    jobs.map(({ charge, runAt }) => ({ kind: "async-charge" as const, refId: charge.id, runAt, now })),
  );
}

async function recordOutcomeEvents(
  trx: Tx,
  outcomes: readonly Outcome[],
  merchants: ReadonlyMap<string, MerchantRecord | undefined>,
  now: Date,
): Promise<void> {
  await recordEvents(
    trx,
    outcomes.flatMap((outcome) =>
      outcome.event === EventType.UNSPECIFIED
        ? []
        : [
            {
              merchantId: outcome.subscription.merchantId,
              type: outcome.event,
              chargeId: outcome.charge?.id,
              content: subscriptionEventContent(
                outcome.subscription,
                merchants.get(outcome.subscription.merchantId)?.name ?? "",
                now,
                outcome.period,
              ),
              now,
            },
          ],
    ),
  );
}
