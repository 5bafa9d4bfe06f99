import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import {
  decideIdempotency,
  idempotencyLeaseMs,
  idempotencyRetentionMs,
  type IdempotencyRecord,
} from "../domain/idempotency.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import {
  deleteExpiredIdempotencyRecords,
  deleteIdempotencyRecord,
  findIdempotencyRecord,
  insertIdempotencyRecord,
  lockIdempotencyRecord,
  replaceIdempotencyRecord,
  updateInFlightIdempotencyRecord,
} from "../storage/idempotency-keys.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { limits } from "../domain/limits.js";

/** A request running under a claimed key. */
export interface IdempotencyScope {
  readonly merchantId: string;
  readonly key: string;
  /**
   * Set when this attempt took over the key from a first attempt whose process died after its
   * flow committed: what that attempt created, which the flow resumes instead of creating again.
   */
  readonly resumeResourceId: string;
}

/** What to do with a request that carries a key: run it under the scope, or answer the first response again. */
export type IdempotentStart = { run: IdempotencyScope } | { replay: IdempotencyRecord };

/** Expired keys are deleted at most this often per service (lookups ignore them meanwhile). */
const purgeEveryMs = limits.idempotencyPurgeEveryMs;
const lastPurge = new WeakMap<FlowContext, number>();

/**
 * Claims a key for a request (docs/reference/contract.md#idempotency), or says it was answered already.
 * Refuses the same key with another request (invalid_argument) and a duplicate of a request
 * still in flight (aborted). Concurrent duplicates race for one row: exactly one claims it.
 */
export async function beginIdempotentRequest(
  ctx: FlowContext,
  request: { merchantId: string; key: string; method: string; requestHash: string },
): Promise<IdempotentStart> {
  const now = ctx.clock.now();
  await purgeExpired(ctx, now);
  const leaseUntil = new Date(now.getTime() + idempotencyLeaseMs);
  const claim: IdempotencyRecord = {
    merchantId: request.merchantId,
    key: request.key,
    method: request.method,
    requestHash: request.requestHash,
    state: "in_flight",
    responseJson: "",
    httpStatus: 0,
    createdAt: now,
    expiresAt: new Date(now.getTime() + idempotencyRetentionMs),
    leaseUntil,
    resourceId: "",
  };
  const decision = await ctx.tx.write(
    async (trx) => {
      for (;;) {
        const existing = await lockIdempotencyRecord(ctx.tx, trx, request.merchantId, request.key);
        const decided = decideIdempotency(existing, request.requestHash, now);
        if (decided.kind === "claim") {
          if (existing) await replaceIdempotencyRecord(trx, claim);
          // Lost a race with a concurrent first use (PostgreSQL): look again, it is there now.
          else if (!(await insertIdempotencyRecord(trx, claim))) continue;
        }
        if (decided.kind === "take_over") {
          await updateInFlightIdempotencyRecord(trx, request.merchantId, request.key, {
            lease_until: leaseUntil.toISOString(),
          });
        }
        return decided;
      }
      // Answered at its commit: the request's work commits after it (docs/architecture.md#durability).
    },
    { awaitDurable: false },
  );
  const scope = (resumeResourceId: string): IdempotentStart => ({
    run: { merchantId: request.merchantId, key: request.key, resumeResourceId },
  });
  switch (decision.kind) {
    case "claim":
      return scope("");
    case "take_over":
      return scope(decision.resourceId);
    case "replay":
      return { replay: decision.record };
    case "conflict":
      throw new RequestRefusal(
        "conflict",
        `idempotency key ${request.key} was already used with a different request (${decision.record.method}); use a new key for a new request`,
      );
    case "in_flight":
      throw new RequestRefusal(
        "in_flight",
        `a request with idempotency key ${request.key} is still in flight; retry it later`,
      );
  }
}

/**
 * Ties what a flow created to the key, inside the flow's own transaction: if the process dies
 * before the response is stored, the attempt that takes the key over resumes this resource.
 */
export async function bindIdempotentResource(
  trx: Tx,
  scope: IdempotencyScope | undefined,
  resourceId: string,
): Promise<void> {
  if (scope) await updateInFlightIdempotencyRecord(trx, scope.merchantId, scope.key, { resource_id: resourceId });
}

/** Stores the first response (message JSON or Connect error JSON): later duplicates replay it. */
export async function finishIdempotentRequest(
  ctx: FlowContext,
  scope: IdempotencyScope,
  response: { json: string; httpStatus: number },
): Promise<void> {
  // Answered at its commit: lost in a crash, the retry that takes the key over rebuilds it
  // from the bound resource (docs/architecture.md#durability).
  await ctx.tx.write(
    (trx) =>
      updateInFlightIdempotencyRecord(trx, scope.merchantId, scope.key, {
        state: "completed",
        response_json: response.json,
        http_status: response.httpStatus,
        lease_until: null,
      }),
    { awaitDurable: false },
  );
}

/** Keeps the claim while the request runs (a slow bank must not look like a dead process). */
export async function renewIdempotentRequest(ctx: FlowContext, scope: IdempotencyScope): Promise<void> {
  const leaseUntil = new Date(ctx.clock.now().getTime() + idempotencyLeaseMs).toISOString();
  await ctx.tx.write((trx) =>
    updateInFlightIdempotencyRecord(trx, scope.merchantId, scope.key, { lease_until: leaseUntil }),
  );
}

/**
 * Settles a request that failed. Nothing created under the key yet (no resource bound, so the
 * refusal was decided before any side effect, whatever layer raised it): the key is freed and
 * stores nothing, so the corrected request can use it (decisions.md, "Idempotency"). Otherwise a
 * payment error or refusal (`response`) is stored as the answer, and an unexpected failure lets
 * the claim go at once, so a retry runs again and resumes what was created.
 */
export async function settleFailedRequest(
  ctx: FlowContext,
  scope: IdempotencyScope,
  response: { json: string; httpStatus: number } | undefined,
): Promise<void> {
  await ctx.tx.write(async (trx) => {
    const record = await lockIdempotencyRecord(ctx.tx, trx, scope.merchantId, scope.key);
    if (record?.state !== "in_flight") return;
    if (record.resourceId === "") return deleteIdempotencyRecord(trx, scope.merchantId, scope.key);
    await updateInFlightIdempotencyRecord(
      trx,
      scope.merchantId,
      scope.key,
      response
        ? { state: "completed", response_json: response.json, http_status: response.httpStatus, lease_until: null }
        : { lease_until: ctx.clock.now().toISOString() },
    );
  });
}

/** GetIdempotencyRecord: what became of a request sent with this key (expired keys are gone). */
export async function getIdempotencyRecord(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  key: string,
): Promise<IdempotencyRecord> {
  const record = await findIdempotencyRecord(ctx.tx.db, merchant.id, key);
  if (!record || record.expiresAt <= ctx.clock.now())
    throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `idempotency key ${key} not found`);
  return record;
}

async function purgeExpired(ctx: FlowContext, now: Date): Promise<void> {
  const last = lastPurge.get(ctx);
  if (last !== undefined && Math.abs(now.getTime() - last) < purgeEveryMs) return;
  lastPurge.set(ctx, now.getTime());
  await ctx.tx.write((trx) => deleteExpiredIdempotencyRecords(trx, now));
}
