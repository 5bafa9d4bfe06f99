import { createHash } from "node:crypto";
import { limits } from "./limits.js";

/** docs/reference/contract.md#idempotency: keys are kept at least 72 hours per merchant, longer than webhook retries last. */
export const idempotencyRetentionMs = limits.idempotencyRetentionMs;

/**
 * How long a claim on a key holds without renewal. The request running under it renews it; a
 * claim left to lapse belonged to a process that died, and the next attempt takes it over.
 */
export const idempotencyLeaseMs = limits.idempotencyLeaseMs;

/** A key as stored: who used it for what, and the first response once there is one. */
export interface IdempotencyRecord {
  merchantId: string;
  key: string;
  /** payments.v1.PaymentService/CreateOffSessionPaymentAsync, … */
  method: string;
  requestHash: string;
  state: "in_flight" | "completed";
  /** The response message JSON, or the Connect error JSON; "" while in flight. */
  responseJson: string;
  httpStatus: number;
  createdAt: Date;
  expiresAt: Date;
  leaseUntil: Date | null;
  /** What the first attempt created (its trx-*, …), "" until its flow committed. */
  resourceId: string;
}

/** What a request carrying a key does (docs/reference/contract.md#idempotency). */
export type IdempotencyDecision =
  /** First use of the key (or its record expired): run the request. */
  | { kind: "claim" }
  /** The first attempt's process died mid-request: run again, resuming what it created. */
  | { kind: "take_over"; resourceId: string }
  /** Same key, same request, answered: the first response again. */
  | { kind: "replay"; record: IdempotencyRecord }
  /** Same key, another request: refused (invalid_argument). */
  | { kind: "conflict"; record: IdempotencyRecord }
  /** Same key, same request, still running: refused (aborted), retry later. */
  | { kind: "in_flight" };

export function decideIdempotency(
  existing: IdempotencyRecord | undefined,
  requestHash: string,
  now: Date,
): IdempotencyDecision {
  if (!existing || existing.expiresAt <= now) return { kind: "claim" };
  if (existing.requestHash !== requestHash) return { kind: "conflict", record: existing };
  if (existing.state === "completed") return { kind: "replay", record: existing };
  if (existing.leaseUntil && existing.leaseUntil > now) return { kind: "in_flight" };
  return { kind: "take_over", resourceId: existing.resourceId };
}

/**
 * The identity of a request: its method and its message as JSON with the key field left out
 * (so the same request sent with the key in the header or in the body is the same request).
 * Object keys are sorted, so map order does not change the hash.
 */
export function requestFingerprint(method: string, messageJson: unknown): string {
  return createHash("sha256").update(method).update("\n").update(canonicalJson(messageJson)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
