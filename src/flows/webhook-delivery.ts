import { DeliveryStatus } from "../../gen/payments/v1/enums_pb.js";
import { nextRetryAt, retryWindowMs } from "../domain/webhook-retry.js";
import { envelopeBody, standardWebhookHeaders } from "../domain/webhook-signature.js";
import { webhookUrlRefusal } from "../domain/webhook-url.js";
import type { Clock } from "../ports/clock.js";
import type { WebhookAnswer, WebhookTransport } from "../ports/webhook-transport.js";
import {
  clearMerchantFailing,
  dueEventsOfMerchant,
  insertDeliveryAttempt,
  leaseEvents,
  merchantsWithDueEvents,
  releaseLease,
  requeuePendingEvents,
  setMerchantFailing,
  settleAttempt,
} from "../storage/events.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";
import { daysMs } from "../domain/duration.js";

/** An event leased for one delivery attempt, with what is needed to send it. */
export interface ClaimedEvent {
  id: string;
  merchantId: string;
  eventTypeName: string;
  contentJson: string;
  createdAt: string;
  /** Attempts already made in this retry cycle. */
  attemptCount: number;
  windowStartedAt: Date;
  webhookUrl: string;
  webhookSecret: string;
  /** The lease taken for this attempt; the outcome is recorded only while it still holds. */
  leaseUntil: string;
}

export type DeliveryOutcome = "delivered" | "retrying" | "failed" | "aborted";

export interface DeliveryDeps {
  transport: WebhookTransport;
  /** Real time for the `webhook-timestamp` header: receivers check it against their own clock. */
  wallClock: Clock;
  /** [0, 1), for the retry jitter. */
  random: () => number;
}

/**
 * Leases due events for delivery: at most `capacity` in all and `perMerchant` per merchant,
 * counting what this process already has in flight (`busy`). Merchants with the oldest due
 * event go first, and an event waits while an earlier one of its charge is pending. Events of
 * merchants without a webhook URL stay pending until one is set.
 */
export async function claimDueEvents(
  ctx: FlowContext,
  request: { capacity: number; perMerchant: number; busy: ReadonlyMap<string, number>; leaseMs: number },
): Promise<ClaimedEvent[]> {
  const now = ctx.clock.now();
  const nowIso = now.toISOString();
  const leaseUntil = new Date(now.getTime() + request.leaseMs).toISOString();
  return ctx.tx.write(async (trx) => {
    const claimed: ClaimedEvent[] = [];
    for (const merchant of await merchantsWithDueEvents(trx, nowIso)) {
      const free = Math.min(
        request.perMerchant - (request.busy.get(merchant.id) ?? 0),
        request.capacity - claimed.length,
      );
      if (free <= 0) continue;
      const rows = await dueEventsOfMerchant(trx, ctx.tx.dialect, merchant.id, nowIso, free);
      for (const row of rows) {
        claimed.push({
          id: row.id,
          merchantId: merchant.id,
          eventTypeName: row.eventTypeName,
          contentJson: row.contentJson,
          // The envelope carries the time exactly as stored (written by toISOString).
          createdAt: row.createdAt.toISOString(),
          attemptCount: row.attemptCount,
          windowStartedAt: row.retryWindowStartedAt ?? now,
          webhookUrl: merchant.webhookUrl,
          webhookSecret: merchant.webhookSecret,
          leaseUntil,
        });
      }
      if (claimed.length >= request.capacity) break;
    }
    if (claimed.length > 0)
      await leaseEvents(
        trx,
        claimed.map((e) => e.id),
        leaseUntil,
        nowIso,
      );
    return claimed;
  });
}

/** What one attempt came to, ready to be recorded. */
export interface AttemptResult {
  event: ClaimedEvent;
  answer: WebhookAnswer;
  attemptedAt: Date;
  settledAt: Date;
}

/** One delivery attempt of a leased event: sign and POST it. Records nothing (see `recordAttempts`). */
export async function attemptDelivery(
  ctx: FlowContext,
  deps: DeliveryDeps,
  event: ClaimedEvent,
  signal?: AbortSignal,
): Promise<AttemptResult> {
  const attemptedAt = ctx.clock.now();
  const answer = await send(ctx, deps, event, signal);
  return { event, answer, attemptedAt, settledAt: ctx.clock.now() };
}

/**
 * Records attempts and decides, in one transaction for all of them (one commit for a burst of
 * answers): 2xx is delivered (and clears the merchant's failing mark); anything else is retried
 * on the schedule until the 3-day window is over, then the event is FAILED and the merchant marked
 * failing. An attempt cut short by shutdown is not counted: its lease is released instead.
 */
export async function recordAttempts(
  ctx: FlowContext,
  deps: Pick<DeliveryDeps, "random">,
  results: AttemptResult[],
): Promise<DeliveryOutcome[]> {
  return ctx.tx.write(async (trx) => {
    const outcomes: DeliveryOutcome[] = [];
    for (const result of results) outcomes.push(await recordAttempt(trx, deps, result));
    return outcomes;
  });
}

async function recordAttempt(
  trx: Tx,
  deps: Pick<DeliveryDeps, "random">,
  { event, answer, attemptedAt, settledAt }: AttemptResult,
): Promise<DeliveryOutcome> {
  if (answer.aborted) {
    await releaseLease(trx, event.id, event.leaseUntil);
    return "aborted";
  }
  await insertDeliveryAttempt(trx, {
    eventId: event.id,
    attemptedAt,
    httpStatus: answer.httpStatus,
    error: answer.error,
    durationMs: answer.durationMs,
  });
  if (answer.httpStatus >= 200 && answer.httpStatus < 300) {
    await settleAttempt(trx, event.id, event.leaseUntil, {
      status: DeliveryStatus.DELIVERED,
      deliveredAt: settledAt.toISOString(),
    });
    await clearMerchantFailing(trx, event.merchantId);
    return "delivered";
  }
  const failedAttempts = event.attemptCount + 1;
  const retryAt = nextRetryAt({
    failedAttempts,
    windowStartedAt: event.windowStartedAt,
    failedAt: settledAt,
    random: deps.random(),
  });
  if (retryAt) {
    await settleAttempt(trx, event.id, event.leaseUntil, {
      status: DeliveryStatus.PENDING,
      nextAttemptAt: retryAt.toISOString(),
    });
    return "retrying";
  }
  if (await settleAttempt(trx, event.id, event.leaseUntil, { status: DeliveryStatus.FAILED })) {
    await setMerchantFailing(trx, event.merchantId, failingReason(event, failedAttempts, answer));
  }
  return "failed";
}

async function send(
  ctx: FlowContext,
  deps: DeliveryDeps,
  event: ClaimedEvent,
  signal?: AbortSignal,
): Promise<WebhookAnswer> {
  // Checked again at delivery: the URL may predate a rule, or the mode may have changed.
  const refusal = webhookUrlRefusal(event.webhookUrl, ctx.mode.publicUrlsOnly);
  if (refusal) return { httpStatus: 0, error: `webhook URL refused: ${refusal}`, durationMs: 0 };
  const body = envelopeBody(event.webhookSecret, {
    id: event.id,
    createdAt: event.createdAt,
    eventType: event.eventTypeName,
    contentJson: event.contentJson,
  });
  return deps.transport.post(
    event.webhookUrl,
    body,
    standardWebhookHeaders(event.webhookSecret, event.id, body, deps.wallClock.now()),
    signal,
  );
}

function failingReason(event: ClaimedEvent, attempts: number, last: WebhookAnswer): string {
  const days = retryWindowMs / daysMs(1);
  const lastAnswer = last.error || `HTTP ${last.httpStatus}`;
  return `${event.eventTypeName} event ${event.id} could not be delivered to ${event.webhookUrl} in ${attempts} attempts over ${days} days; last attempt: ${lastAnswer}`;
}

/**
 * After the merchant's webhook URL changed: pending events start a new retry cycle now, so a
 * fixed endpoint receives them at once. Call inside the transaction that changes the URL, then
 * `ctx.wake("events")` after the commit.
 */
export async function resumeDeliveries(trx: Tx, merchantId: string, now: Date): Promise<void> {
  await requeuePendingEvents(trx, merchantId, now.toISOString());
}
