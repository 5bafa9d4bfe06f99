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
  /**
   * Set on a first use of the key whose claim is not written yet: the flow's own transaction
   * writes it, bound to what it creates (bindIdempotentResource), so the claim costs no
   * transaction of its own (docs/architecture.md#durability).
   */
  readonly pendingClaim?: PendingClaim;
}

/** The claim of a first use, written by the flow's transaction; what became of it. */
export interface PendingClaim {
  /** The in-flight record to insert (resourceId "" here: bindIdempotentResource sets it). */
  readonly record: IdempotencyRecord;
  /** What the flow bound when it inserted the claim; "" while nothing was. */
  boundResourceId: string;
  /**
   * A concurrent first use inserted the key first: the flow's transaction rolled back, nothing
   * was created, and the request starts again by the locked path (runIdempotent).
   */
  taken: boolean;
}

/**
 * Thrown by bindIdempotentResource when a concurrent first use holds the key: it rolls back the
 * flow's whole transaction, so what that transaction wrote is not created twice.
 */
export class IdempotencyKeyTaken extends Error {
  constructor(key: string) {
    super(`idempotency key ${key} was claimed by a concurrent request`);
  }
}

/** What to do with a request that carries a key: run it under the scope, or answer the first response again. */
export type IdempotentStart = { run: IdempotencyScope } | { replay: IdempotencyRecord };

/** Expired keys are deleted at most this often per service (lookups ignore them meanwhile). */
const purgeEveryMs = limits.idempotencyPurgeEveryMs;
const lastPurge = new WeakMap<FlowContext, number>();

/** What identifies a keyed request. */
export interface IdempotentRequest {
  merchantId: string;
  key: string;
  method: string;
  requestHash: string;
}

/**
 * Runs a keyed request: `attempt` gets what beginIdempotentRequest decided (run the flow under
 * the scope, or answer the stored response) and does it. `claimInFlow` is for a flow that binds
 * the key in the transaction of its first side effect, before any bank call (bindIdempotentResource):
 * a first use then leaves the claim to that transaction. When it finds the key taken by a
 * concurrent first use, that transaction rolled back, and the request starts again by the locked
 * path, which answers it as if it had come second (replay, in flight, conflict).
 */
export async function runIdempotent<T>(
  ctx: FlowContext,
  request: IdempotentRequest,
  claimInFlow: boolean,
  attempt: (start: IdempotentStart) => Promise<T>,
): Promise<T> {
  const start = await beginIdempotentRequest(ctx, request, claimInFlow);
  try {
    return await attempt(start);
  } catch (error) {
    if (!("run" in start && start.run.pendingClaim?.taken)) throw error;
  }
  return attempt(await beginIdempotentRequest(ctx, request, false));
}

/**
 * Claims a key for a request (docs/reference/contract.md#idempotency), or says it was answered already.
 * Refuses the same key with another request (invalid_argument) and a duplicate of a request
 * still in flight (aborted). Concurrent duplicates race for one row: exactly one claims it.
 * With `claimInFlow`, a key with no record yet (a plain read) is not claimed here: the scope
 * carries the claim for the flow's transaction to insert (PendingClaim); any record, live or
 * expired, is decided under its lock as before.
 */
async function beginIdempotentRequest(
  ctx: FlowContext,
  request: IdempotentRequest,
  claimInFlow = false,
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
  if (claimInFlow && !(await findIdempotencyRecord(ctx.tx.db, request.merchantId, request.key))) {
    const pendingClaim: PendingClaim = { record: claim, boundResourceId: "", taken: false };
    return { run: { merchantId: request.merchantId, key: request.key, resumeResourceId: "", pendingClaim } };
  }
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
 * A pending claim (a first use) is inserted here, already bound; a concurrent first use that
 * inserted the key first makes it throw IdempotencyKeyTaken, which rolls the transaction back.
 */
export async function bindIdempotentResource(
  trx: Tx,
  scope: IdempotencyScope | undefined,
  resourceId: string,
): Promise<void> {
  if (!scope) return;
  const claim = scope.pendingClaim;
  if (!claim) return updateInFlightIdempotencyRecord(trx, scope.merchantId, scope.key, { resource_id: resourceId });
  if (!(await insertIdempotencyRecord(trx, { ...claim.record, resourceId }))) {
    claim.taken = true;
    throw new IdempotencyKeyTaken(scope.key);
  }
  claim.boundResourceId = resourceId;
}

/** False for a first use whose flow has not written its claim (nothing of it is stored to change). */
function claimWritten(scope: IdempotencyScope): boolean {
  return !scope.pendingClaim || scope.pendingClaim.boundResourceId !== "";
}

/** Stores the first response (message JSON or Connect error JSON): later duplicates replay it. */
export async function finishIdempotentRequest(
  ctx: FlowContext,
  scope: IdempotencyScope,
  response: { json: string; httpStatus: number },
): Promise<void> {
  // A flow that succeeded without binding its pending claim wrote no record, and a duplicate
  // would create again: only a method whose flow always binds may be run with claimInFlow.
  if (!claimWritten(scope)) throw new Error(`idempotency key ${scope.key}: the flow never bound its deferred claim`);
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
  if (!claimWritten(scope)) return;
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
 * the claim go at once, so a retry runs again and resumes what was created. A first use whose
 * flow never wrote its claim left no record to settle; one whose claim was rolled back with its
 * transaction owns no record either, so a record bound to another resource is left alone.
 */
export async function settleFailedRequest(
  ctx: FlowContext,
  scope: IdempotencyScope,
  response: { json: string; httpStatus: number } | undefined,
): Promise<void> {
  if (!claimWritten(scope)) return;
  const bound = scope.pendingClaim?.boundResourceId;
  await ctx.tx.write(async (trx) => {
    const record = await lockIdempotencyRecord(ctx.tx, trx, scope.merchantId, scope.key);
    if (record?.state !== "in_flight") return;
    if (bound !== undefined && record.resourceId !== bound) return;
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
