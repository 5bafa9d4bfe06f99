import { newId } from "../domain/ids.js";
import type { Transactor, Tx } from "./transactor.js";
import { insertRows } from "./bulk-insert.js";
import { limits } from "../domain/limits.js";

/** Kinds of durable work; each has one handler registered with the JobRunner. */
export type JobKind =
  | "async-charge"
  | "refund-settlement"
  | "link-expiry"
  | "link-approval"
  | "csv-row"
  | "kyc-review"
  | "debit-notice"
  | "zengin-cycle"
  | "subscription-cycle"
  | "sign-in-code-mail"
  | "sign-up-code-mail"
  | "subscription-failure-mail"
  | "subscription-notice";

/** What a handler says about its job: done, or run again at a later time. */
export type JobOutcome = { done: true } | { retryAt: Date };

/** A job a worker holds until `leaseUntil`; `attempts` counts this run. */
export interface ClaimedJob {
  readonly id: string;
  readonly kind: JobKind;
  readonly refId: string;
  readonly attempts: number;
  readonly leaseUntil: string;
}

/**
 * Queues durable work inside the caller's transaction, so it exists exactly when the state
 * change that needs it does. Call `ctx.wake("jobs")` after the commit to start it at once.
 */
export async function enqueueJob(
  trx: Tx,
  job: { kind: JobKind; refId: string; runAt: Date; now: Date },
): Promise<void> {
  await enqueueJobs(trx, [job]);
}

/** `enqueueJob` for many jobs at once (a subscription cycle's charges), in chunks. */
export async function enqueueJobs(
  trx: Tx,
  jobs: readonly { kind: JobKind; refId: string; runAt: Date; now: Date }[],
): Promise<void> {
  await insertRows(
    trx,
    "jobs",
    jobs.map((job) => ({
      id: newId("job"),
      kind: job.kind,
      ref_id: job.refId,
      run_at: job.runAt.toISOString(),
      attempts: 0,
      lease_until: null,
      state: "pending",
      created_at: job.now.toISOString(),
    })),
  );
}

/** Whether a job of this kind for this reference is still waiting to run. */
export async function hasPendingJob(trx: Tx, kind: JobKind, refId: string): Promise<boolean> {
  const pending = await trx
    .selectFrom("jobs")
    .select("id")
    .where("kind", "=", kind)
    .where("ref_id", "=", refId)
    .where("state", "=", "pending")
    .executeTakeFirst();
  return pending !== undefined;
}

/**
 * Claims up to `limit` due jobs with a lease until `leaseUntil` (a job whose worker died is taken
 * over when its lease lapses). On PostgreSQL a claim skips rows another claim has locked.
 */
export function claimDueJobs(tx: Transactor, now: Date, leaseUntil: string, limit: number): Promise<ClaimedJob[]> {
  const nowIso = now.toISOString();
  return tx.write(async (trx) => {
    let query = trx
      .selectFrom("jobs")
      .select(["id", "kind", "ref_id", "attempts"])
      .where("state", "=", "pending")
      .where("run_at", "<=", nowIso)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", nowIso)]))
      .orderBy("run_at")
      .limit(limit);
    if (tx.dialect === "postgres") query = query.forUpdate().skipLocked();
    const due = await query.execute();
    if (due.length === 0) return [];
    await trx
      .updateTable("jobs")
      .set((eb) => ({ lease_until: leaseUntil, attempts: eb("attempts", "+", 1) }))
      .where(
        "id",
        "in",
        due.map((j) => j.id),
      )
      .execute();
    return due.map((j) => ({
      id: j.id,
      kind: j.kind as JobKind,
      refId: j.ref_id,
      attempts: j.attempts + 1,
      leaseUntil,
    }));
  });
}

/** Records a job's outcome, only while our lease holds: a worker that took the job over after it lapsed owns the outcome now. */
export function recordJobOutcome(
  tx: Transactor,
  job: { id: string; leaseUntil: string },
  outcome: JobOutcome,
): Promise<void> {
  return recordJobOutcomes(tx, [{ job, outcome }]);
}

/**
 * `recordJobOutcome` for a batch of jobs in one transaction: the done jobs of one claim (one
 * lease) are deleted by one statement, each retry is rescheduled by its own.
 */
export function recordJobOutcomes(
  tx: Transactor,
  outcomes: readonly { job: { id: string; leaseUntil: string }; outcome: JobOutcome }[],
): Promise<void> {
  return tx.write(async (trx) => {
    const doneByLease = new Map<string, string[]>();
    for (const { job, outcome } of outcomes) {
      if ("done" in outcome) doneByLease.set(job.leaseUntil, [...(doneByLease.get(job.leaseUntil) ?? []), job.id]);
      else
        await trx
          .updateTable("jobs")
          .set({ run_at: outcome.retryAt.toISOString(), lease_until: null })
          .where("id", "=", job.id)
          .where("lease_until", "=", job.leaseUntil)
          .execute();
    }
    for (const [leaseUntil, ids] of doneByLease)
      for (let start = 0; start < ids.length; start += limits.sqlInListIds)
        await trx
          .deleteFrom("jobs")
          .where("id", "in", ids.slice(start, start + limits.sqlInListIds))
          .where("lease_until", "=", leaseUntil)
          .execute();
  });
}

/**
 * A job that always exists once (the Zengin file cycle): its id is fixed, so every instance may
 * ask for it and one row results; the lease lets one instance at a time run it.
 */
export async function ensureSingletonJob(trx: Tx, kind: JobKind, now: Date): Promise<void> {
  await trx
    .insertInto("jobs")
    .values({
      id: `job-${kind}`,
      kind,
      ref_id: kind,
      run_at: now.toISOString(),
      attempts: 0,
      lease_until: null,
      state: "pending",
      created_at: now.toISOString(),
    })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
}
