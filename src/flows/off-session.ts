import {
  ApiSource,
  AsyncStatus,
  ChargeStatus,
  EventType,
  PaymentErrorCode,
  type ErrorType,
} from "../../gen/payments/v1/enums_pb.js";
import {
  isAsyncRequestFinal,
  newAsyncRequest,
  transitionAsyncRequest,
  type AsyncRequestRecord,
} from "../domain/async-request.js";
import { transitionCharge } from "../domain/charge.js";
import { newId } from "../domain/ids.js";
import type { ChargeSettlement, SettlementDecision } from "../domain/charge-settlement.js";
import type { BankResult } from "../ports/bank-gateway.js";
import { afterBankAnswer, newOffSessionCharge, settlementOf } from "../domain/off-session-charge.js";
import { offSessionRefusal } from "../domain/off-session-eligibility.js";
import { errorTriggerOf, triggeredErrorMessage } from "../domain/error-trigger.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import type { ChargeRecord, Metadata } from "../domain/records.js";
import { chargeEventContent } from "../domain/webhook-content.js";
import { chargeFailure, invalidTriggerFailure, triggeredFailure } from "../errors.js";
import { enqueueJob, type JobOutcome } from "../storage/jobs.js";
import {
  findAsyncRequest,
  insertAsyncRequest,
  lockAsyncRequest,
  lockAsyncRequests,
  saveAsyncRequestStatus,
  saveAsyncRequestStatuses,
} from "../storage/async-requests.js";
import { insertCharge, lockCharge, lockChargesByIds } from "../storage/charges.js";
import { findActivatedContracts } from "../storage/contracts.js";
import { findCharge, findCustomer } from "../storage/status-queries.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { settleCharges } from "./charge-settlement.js";
import { bindIdempotentResource, type IdempotencyScope } from "./idempotency.js";
import { recordEvent } from "../storage/events.js";
import { limits } from "../domain/limits.js";
import { chargingRefusals } from "../domain/onboarding.js";
import { refuseBlockedMerchant } from "./charging-allowed.js";

/** An off-session request as the flows take it (docs/reference/contract.md#off-session). */
export interface OffSessionInput {
  customerId: string;
  price: number;
  description: string;
  metadata: Metadata;
  forceKyc: boolean;
}

/**
 * A synchronous charge also gets an engine job, due this long after it started: should the
 * process die between the bank call and the commit, the engine finishes the charge. When the
 * call completes normally the job finds the charge settled and does nothing.
 */
const syncRecoveryDelayMs = limits.offSessionSyncRecoveryDelayMs;

/**
 * CreateOffSessionPaymentAsync: one transaction writes the charge (trx-*), the request (pwf-*)
 * and either the engine job (PENDING) or, when the charge cannot start, the charge in FAILURE
 * with its CHARGE_FAIL event (FAILED_TO_START). The caller answers 200 either way.
 */
export async function createOffSessionPaymentAsync(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  input: OffSessionInput,
  idempotency?: IdempotencyScope,
): Promise<AsyncRequestRecord> {
  await refuseBlockedMerchant(ctx, merchant.id, chargingRefusals.offSession);
  const triggered = offSessionTrigger(ctx, input);
  const resumed = await resumedCharge(ctx, merchant, idempotency);
  const resumedRequest = resumed?.requestId
    ? await findAsyncRequest(ctx.tx.db, merchant.id, resumed.requestId)
    : undefined;
  if (resumed && triggered !== undefined) throw triggeredFailure(triggered, idsOf(resumed));
  if (resumedRequest) return resumedRequest;

  const now = ctx.clock.now();
  const requestId = newId("pwf");
  let started: ChargeRecord | undefined;
  const request = await ctx.tx.write(async (trx) => {
    const charge = await startCharge(
      ctx,
      trx,
      merchant,
      input,
      { apiSource: ApiSource.OFF_SESSION_ASYNC, requestId, triggered },
      now,
    );
    const refusal = charge.status === ChargeStatus.FAILURE ? charge.errorType : undefined;
    const created = newAsyncRequest(
      { id: requestId, merchantId: merchant.id, chargeId: charge.id, forceKyc: input.forceKyc, refusal, triggered },
      now,
    );
    await insertAsyncRequest(trx, created);
    if (created.status === AsyncStatus.PENDING)
      await enqueueJob(trx, { kind: "async-charge", refId: charge.id, runAt: now, now });
    await bindIdempotentResource(trx, idempotency, charge.id);
    started = charge;
    return created;
  });
  ctx.wake(request.status === AsyncStatus.PENDING ? "jobs" : "events");
  if (started?.status === ChargeStatus.FAILURE) ctx.metrics?.chargeSettled(started);
  if (triggered !== undefined) throw triggeredFailure(triggered, { chargeId: request.chargeId, requestId: request.id });
  return request;
}

/**
 * CreateOffSessionPayment (deprecated): the same charge, with the bank called inline. Answers
 * the settled charge; a failed one is a PaymentFailure carrying its ErrorType (the charge and
 * its CHARGE_FAIL event are written all the same).
 */
export async function createOffSessionPayment(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  input: OffSessionInput,
  idempotency?: IdempotencyScope,
): Promise<ChargeRecord> {
  await refuseBlockedMerchant(ctx, merchant.id, chargingRefusals.offSession);
  const triggered = offSessionTrigger(ctx, input);
  let charge = await resumedCharge(ctx, merchant, idempotency);
  if (!charge) {
    const now = ctx.clock.now();
    charge = await ctx.tx.write(async (trx) => {
      // A triggered failure gets its payment workflow record (pwf-*) too (docs/reference/contract.md#error-triggers).
      const requestId = triggered === undefined ? null : newId("pwf");
      const started = await startCharge(
        ctx,
        trx,
        merchant,
        input,
        { apiSource: ApiSource.OFF_SESSION_SYNC, requestId, triggered },
        now,
      );
      if (requestId) {
        await insertAsyncRequest(
          trx,
          newAsyncRequest(
            {
              id: requestId,
              merchantId: merchant.id,
              chargeId: started.id,
              forceKyc: input.forceKyc,
              refusal: undefined,
              triggered,
            },
            now,
          ),
        );
      }
      if (started.status === ChargeStatus.PENDING) {
        await enqueueJob(trx, {
          kind: "async-charge",
          refId: started.id,
          runAt: new Date(now.getTime() + syncRecoveryDelayMs),
          now,
        });
      }
      await bindIdempotentResource(trx, idempotency, started.id);
      return started;
    });
    if (charge.status === ChargeStatus.FAILURE) {
      ctx.wake("events");
      ctx.metrics?.chargeSettled(charge);
    }
  }
  if (triggered !== undefined) throw triggeredFailure(triggered, idsOf(charge));
  if (charge.status === ChargeStatus.PENDING) {
    // The synchronous call cannot wait out a maintenance window: a retryable refusal fails now.
    // A debit scheduled for a Zengin file answers the charge PENDING; its result file settles it.
    const answer = await debit(ctx, charge);
    if (!answer.scheduled) charge = await settleCharge(ctx, charge.id, settlementOf(answer));
  }
  if (charge.status === ChargeStatus.FAILURE) throw chargeFailure(charge.errorType, charge.errorMessage);
  return charge;
}

/**
 * The engine's job for one charge (kind "async-charge", keyed by the trx-*): marks the request
 * RUNNING, calls the bank with the trx-* as its reference (outside any transaction), then settles
 * the charge and the request and writes the charge event in one transaction — or asks to run
 * again later after a retryable refusal. A job whose process died is taken over when its lease
 * lapses; the bank reference makes the repeated call safe.
 */
export async function runOffSessionCharge(ctx: FlowContext, chargeId: string, attempt: number): Promise<JobOutcome> {
  const started = await ctx.tx.write(async (trx) => {
    const locked = await lockCharge(ctx.tx, trx, chargeId);
    if (locked?.status !== ChargeStatus.PENDING) return undefined;
    const request = await lockedAsyncRequestOf(ctx, trx, locked);
    if (request && !isAsyncRequestFinal(request.status)) {
      await saveAsyncRequestStatus(
        trx,
        transitionAsyncRequest(request, AsyncStatus.RUNNING, ctx.clock.now(), { attempts: attempt }),
      );
    }
    // A bank of files schedules under the charge's lock (usually done at acceptance already).
    return { charge: locked, scheduled: await ctx.bank.schedule?.(trx, "debit", debitRequest(ctx, locked)) };
  });
  if (!started) return { done: true };
  const answer = started.scheduled ?? (await debit(ctx, started.charge));
  // Scheduled for a Zengin file: the request stays RUNNING until the result file settles the charge.
  if (answer.scheduled) return { done: true };
  const outcome = afterBankAnswer(answer, attempt, ctx.clock.now());
  if ("retryAt" in outcome) return { retryAt: outcome.retryAt };
  await settleCharge(ctx, chargeId, outcome);
  return { done: true };
}

/**
 * The engine's jobs for many charges at once: `runOffSessionCharge` for each, with the reads and
 * writes batched — one transaction marks every request RUNNING (each charge and request read
 * once, by one statement each), the bank calls run side by side, one transaction settles every
 * answered charge. A batch transaction that fails is run again charge by charge, so one charge's
 * fault is that charge's job's alone. Answers each job's outcome in the order given.
 */
export async function runOffSessionCharges(
  ctx: FlowContext,
  jobs: readonly { refId: string; attempt: number }[],
): Promise<PromiseSettledResult<JobOutcome>[]> {
  if (jobs.length === 1) return Promise.allSettled([runOffSessionCharge(ctx, jobs[0].refId, jobs[0].attempt)]);
  let started: Map<string, { charge: ChargeRecord; scheduled: BankResult | undefined }>;
  try {
    started = await startCharges(ctx, jobs);
  } catch {
    return Promise.allSettled(jobs.map((job) => runOffSessionCharge(ctx, job.refId, job.attempt)));
  }
  const debits = debitAll(
    ctx,
    [...started.values()].flatMap((start) => (start.scheduled ? [] : [start.charge])),
  );
  const answered = await Promise.allSettled(
    jobs.map(async (job) => {
      const start = started.get(job.refId);
      if (!start) return undefined;
      const answer = start.scheduled ?? (await debits.get(job.refId)!);
      // Scheduled for a Zengin file: the request stays RUNNING until the result file settles the charge.
      if (answer.scheduled) return undefined;
      return afterBankAnswer(answer, job.attempt, ctx.clock.now());
    }),
  );
  const toSettle = new Map<string, ChargeSettlement>();
  jobs.forEach((job, i) => {
    const result = answered[i];
    if (result.status === "fulfilled" && result.value && !("retryAt" in result.value))
      toSettle.set(job.refId, result.value);
  });
  const settled = await settleManyCharges(ctx, toSettle);
  return jobs.map((job, i): PromiseSettledResult<JobOutcome> => {
    const result = answered[i];
    if (result.status === "rejected") return result;
    if (result.value && "retryAt" in result.value)
      return { status: "fulfilled", value: { retryAt: result.value.retryAt } };
    const failure = settled.get(job.refId);
    return failure ? { status: "rejected", reason: failure } : { status: "fulfilled", value: { done: true } };
  });
}

/** The first half of `runOffSessionCharge` for many charges: the PENDING ones, marked RUNNING, by id. */
async function startCharges(
  ctx: FlowContext,
  jobs: readonly { refId: string; attempt: number }[],
): Promise<Map<string, { charge: ChargeRecord; scheduled: BankResult | undefined }>> {
  const attempts = new Map(jobs.map((job) => [job.refId, job.attempt]));
  return ctx.tx.write(async (trx) => {
    const pending = (await lockChargesByIds(ctx.tx, trx, [...attempts.keys()])).filter(
      (charge) => charge.status === ChargeStatus.PENDING,
    );
    const requests = await lockAsyncRequests(
      ctx.tx,
      trx,
      pending.flatMap((charge) => (charge.requestId ? [charge.requestId] : [])),
    );
    const now = ctx.clock.now();
    const running: AsyncRequestRecord[] = [];
    for (const charge of pending) {
      const request = charge.requestId ? requests.get(charge.requestId) : undefined;
      if (request && !isAsyncRequestFinal(request.status))
        running.push(
          transitionAsyncRequest(request, AsyncStatus.RUNNING, now, { attempts: attempts.get(charge.id) ?? 0 }),
        );
    }
    await saveAsyncRequestStatuses(trx, running);
    const started = new Map<string, { charge: ChargeRecord; scheduled: BankResult | undefined }>();
    // A bank of files schedules under the charge's lock (usually done at acceptance already).
    for (const charge of pending)
      started.set(charge.id, { charge, scheduled: await ctx.bank.schedule?.(trx, "debit", debitRequest(ctx, charge)) });
    return started;
  });
}

/**
 * `settleCharge` for many charges in one transaction; should it fail, each is settled in its own.
 * Answers the error of each charge that could not be settled, by id.
 */
async function settleManyCharges(
  ctx: FlowContext,
  settlements: ReadonlyMap<string, ChargeSettlement>,
): Promise<Map<string, unknown>> {
  const failures = new Map<string, unknown>();
  if (settlements.size === 0) return failures;
  const now = ctx.clock.now();
  let decisions: SettlementDecision[];
  try {
    decisions = await ctx.tx.write(async (trx) => {
      const charges = await lockChargesByIds(ctx.tx, trx, [...settlements.keys()]);
      if (charges.length !== settlements.size) throw new Error("a charge of the batch vanished");
      const requests = await lockAsyncRequests(
        ctx.tx,
        trx,
        charges.flatMap((charge) => (charge.requestId ? [charge.requestId] : [])),
      );
      const answers = charges.map((charge) => ({
        charge,
        request: charge.requestId ? requests.get(charge.requestId) : undefined,
        settlement: settlements.get(charge.id)!,
      }));
      return settleCharges(ctx, trx, answers, now);
    });
  } catch {
    const one = await Promise.allSettled([...settlements].map(([id, settlement]) => settleCharge(ctx, id, settlement)));
    [...settlements.keys()].forEach((id, i) => {
      const result = one[i];
      if (result.status === "rejected") failures.set(id, result.reason);
    });
    return failures;
  }
  if (decisions.some((decision) => decision.settled)) ctx.wake("events");
  for (const decision of decisions) if (decision.settled) ctx.metrics?.chargeSettled(decision.charge);
  return failures;
}

/** GetAsyncPaymentRequest: poll a request by its pwf-* id. */
export async function getAsyncPaymentRequest(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  id: string,
): Promise<AsyncRequestRecord> {
  const request = await findAsyncRequest(ctx.tx.db, merchant.id, id);
  if (!request) throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `async request ${id} not found`);
  return request;
}

/** The charge an earlier attempt under the same idempotency key created before its process died. */
async function resumedCharge(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  idempotency: IdempotencyScope | undefined,
): Promise<ChargeRecord | undefined> {
  if (!idempotency?.resumeResourceId) return undefined;
  return findCharge(ctx.tx.db, merchant.id, idempotency.resumeResourceId);
}

/**
 * Inside the caller's transaction: looks the customer up, decides whether the charge can start,
 * and writes it — PENDING, or FAILURE with its CHARGE_FAIL event.
 */
async function startCharge(
  ctx: FlowContext,
  trx: Tx,
  merchant: MerchantPrincipal,
  input: OffSessionInput,
  source: {
    apiSource: ApiSource.OFF_SESSION_SYNC | ApiSource.OFF_SESSION_ASYNC;
    requestId: string | null;
    triggered: ErrorType | undefined;
  },
  now: Date,
): Promise<ChargeRecord> {
  const customer = await findCustomer(trx, merchant.id, input.customerId);
  const [activatedContract] = customer ? await findActivatedContracts(trx, customer.id) : [];
  // A sandbox triggerError short-circuits the charge before the bank (docs/reference/contract.md#error-triggers).
  const refusal = source.triggered ?? offSessionRefusal({ customer, activatedContract, forceKyc: input.forceKyc });
  const pending = newOffSessionCharge(
    {
      id: newId("trx"),
      merchantId: merchant.id,
      customerId: input.customerId,
      contractId: activatedContract?.id ?? null,
      // The account the contract was approved with: it stays this charge's, whatever is linked later.
      bankAccountId: activatedContract?.bankAccountId ?? null,
      requestId: source.requestId,
      apiSource: source.apiSource,
      amount: input.price,
      description: input.description,
      metadata: input.metadata,
    },
    now,
  );
  const message = source.triggered === undefined ? undefined : triggeredErrorMessage(source.triggered);
  const charge =
    refusal === undefined
      ? pending
      : transitionCharge(pending, ChargeStatus.FAILURE, now, { errorType: refusal, message });
  await insertCharge(trx, charge);
  // Under the Zengin connector the debit date is decided here, in the transaction that accepts the
  // charge (docs/guide/direct-debit-files.md#the-life-of-a-charge); a refusal (no consignor
  // settings) is left to the charge's job, which fails the charge with it.
  if (charge.status === ChargeStatus.PENDING)
    await ctx.bank.schedule?.(trx, "debit", { ...debitRequest(ctx, charge), at: now });
  if (source.triggered !== undefined) await recordTriggeredEvents(trx, pending, charge, merchant.name, now);
  else if (charge.status === ChargeStatus.FAILURE) await recordFailedStart(trx, charge, merchant.name, now);
  return charge;
}

/** docs/reference/contract.md#error-triggers — the request's charge metadata decides; an invalid value is refused before anything is written. */
function offSessionTrigger(ctx: FlowContext, input: OffSessionInput): ErrorType | undefined {
  const trigger = errorTriggerOf(input.metadata, "off_session", ctx.mode.sandboxTools);
  if (trigger.kind === "invalid") throw invalidTriggerFailure(trigger.value, "charge.metadata");
  return trigger.kind === "error" ? trigger.errorType : undefined;
}

/** The ids a triggered failure names, so the merchant can look the failed charge up. */
function idsOf(charge: ChargeRecord): Record<string, string> {
  return charge.requestId ? { chargeId: charge.id, requestId: charge.requestId } : { chargeId: charge.id };
}

function debit(ctx: FlowContext, charge: ChargeRecord) {
  return ctx.bank.debit(debitRequest(ctx, charge));
}

/**
 * The bank's answers to many charges' debits, by charge id: one call for all where the bank takes
 * a batch (the simulated bank books them in one transaction), else a call per charge. A batch that
 * fails is asked again charge by charge, so one charge's fault stays its own.
 */
function debitAll(ctx: FlowContext, charges: readonly ChargeRecord[]): Map<string, Promise<BankResult>> {
  const many = ctx.bank.debitMany;
  if (!many || charges.length < 2) return new Map(charges.map((charge) => [charge.id, debit(ctx, charge)]));
  const batch = many.call(
    ctx.bank,
    charges.map((charge) => debitRequest(ctx, charge)),
  );
  return new Map(
    charges.map((charge, index) => [
      charge.id,
      batch.then(
        (answers) => answers[index],
        () => debit(ctx, charge),
      ),
    ]),
  );
}

function debitRequest(ctx: FlowContext, charge: ChargeRecord) {
  return {
    merchantId: charge.merchantId,
    accountId: charge.bankAccountId ?? "",
    amount: charge.amount,
    reference: charge.id,
    at: ctx.clock.now(),
  };
}

/**
 * One transaction settles the charge, its request and its event (flows/charge-settlement.ts). A
 * charge someone else settled first is returned as it is. (The bank answers one reference once,
 * so a second worker's call agrees with the first.)
 */
async function settleCharge(ctx: FlowContext, chargeId: string, settlement: ChargeSettlement): Promise<ChargeRecord> {
  const now = ctx.clock.now();
  const [decision] = await ctx.tx.write(async (trx) => {
    const charge = await lockCharge(ctx.tx, trx, chargeId);
    if (!charge) throw new PaymentFailure(PaymentErrorCode.INTERNAL, `charge ${chargeId} vanished`);
    const request = await lockedAsyncRequestOf(ctx, trx, charge);
    return settleCharges(ctx, trx, [{ charge, request, settlement }], now);
  });
  if (decision.settled) {
    ctx.wake("events");
    ctx.metrics?.chargeSettled(decision.charge);
  }
  return decision.charge;
}

async function lockedAsyncRequestOf(
  ctx: FlowContext,
  trx: Tx,
  charge: ChargeRecord,
): Promise<AsyncRequestRecord | undefined> {
  return charge.requestId ? lockAsyncRequest(ctx.tx, trx, charge.requestId) : undefined;
}

/** docs/reference/contract.md#test-trigger: the test-trigger flow sends charge.created (the charge as created), then charge.fail. */
async function recordTriggeredEvents(
  trx: Tx,
  created: ChargeRecord,
  failed: ChargeRecord,
  merchantName: string,
  now: Date,
): Promise<void> {
  await recordEvent(trx, {
    merchantId: failed.merchantId,
    type: EventType.TEST_CHARGE_CREATED,
    chargeId: failed.id,
    content: chargeEventContent(created, merchantName),
    now,
  });
  await recordEvent(trx, {
    merchantId: failed.merchantId,
    type: EventType.TEST_CHARGE_FAIL,
    chargeId: failed.id,
    content: chargeEventContent(failed, merchantName),
    now,
  });
}

/** CHARGE_FAIL for a charge that could not start (a bank's answer settles through flows/charge-settlement.ts). */
async function recordFailedStart(trx: Tx, charge: ChargeRecord, merchantName: string, now: Date): Promise<void> {
  await recordEvent(trx, {
    merchantId: charge.merchantId,
    type: EventType.CHARGE_FAIL,
    chargeId: charge.id,
    content: chargeEventContent(charge, merchantName),
    now,
  });
}
