import { newId } from "../domain/ids.js";
import type { Tx } from "../storage/transactor.js";

/** Kinds of durable work; each has one handler registered with the JobRunner. */
export type JobKind = "async-charge" | "refund-settlement" | "link-expiry" | "csv-row" | "kyc-review" | "zengin-cycle";

/**
 * Queues durable work inside the caller's transaction, so it exists exactly when the state
 * change that needs it does. Call `ctx.wake("jobs")` after the commit to start it at once.
 */
export async function enqueueJob(
  trx: Tx,
  job: { kind: JobKind; refId: string; runAt: Date; now: Date },
): Promise<void> {
  await trx
    .insertInto("jobs")
    .values({
      id: newId("job"),
      kind: job.kind,
      ref_id: job.refId,
      run_at: job.runAt.toISOString(),
      attempts: 0,
      lease_until: null,
      state: "pending",
      created_at: job.now.toISOString(),
    })
    .execute();
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
