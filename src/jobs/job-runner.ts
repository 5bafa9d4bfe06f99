import type { Logger } from "pino";
import type { FlowContext } from "../flows/flow-context.js";
import {
  claimDueJobs,
  recordJobOutcome,
  recordJobOutcomes,
  type ClaimedJob,
  type JobKind,
  type JobOutcome,
} from "../storage/jobs.js";
import { WakeLoop } from "./wake-loop.js";
import { limits } from "../domain/limits.js";

export type JobHandler = (refId: string, attempt: number) => Promise<JobOutcome>;

/**
 * Runs many claimed jobs of one kind together (their reads and writes batched); answers each
 * job's outcome in the order given, a rejected one as a failed run of that job alone.
 */
export type JobBatchHandler = (
  jobs: readonly { refId: string; attempt: number }[],
) => Promise<PromiseSettledResult<JobOutcome>[]>;

/** How long a claimed job is held before another worker may take it over (JOB_LEASE_MS). */

/**
 * Drains the jobs table: claims due jobs with a lease (a job whose worker died is taken over
 * when its lease lapses), runs the handler of its kind, and records the outcome. Woken by
 * `ctx.wake("jobs")`, and polls as a fallback.
 */
export class JobRunner {
  readonly #handlers = new Map<JobKind, JobHandler>();
  readonly #batchHandlers = new Map<JobKind, JobBatchHandler>();
  readonly #loop: WakeLoop;
  #inFlight = new Set<Promise<void>>();
  /** Jobs running (a batch counts its jobs), against the concurrency. */
  #jobsInFlight = 0;
  // Ticks run one at a time: on PostgreSQL a claim skips rows another claim has locked, so a
  // drain() racing the loop's claim would find nothing and return before that claim's jobs ran.
  #ticking: Promise<boolean> = Promise.resolve(false);

  constructor(
    private readonly ctx: FlowContext,
    private readonly logger: Logger,
    private readonly options: { pollMs?: number; concurrency?: number; leaseMs?: number } = {},
  ) {
    this.#loop = new WakeLoop(
      () => this.#tick(),
      (error) => this.logger.error({ err: error }, "job runner tick failed"),
      options.pollMs ?? 1000,
    );
  }

  register(kind: JobKind, handler: JobHandler): void {
    this.#handlers.set(kind, handler);
  }

  /** A kind whose claimed jobs run as one batch (each claim's jobs of that kind together). */
  registerBatch(kind: JobKind, handler: JobBatchHandler): void {
    this.#batchHandlers.set(kind, handler);
  }

  start(): void {
    this.#loop.start();
  }

  /** Runs every due job now (tests call this after moving the clock). */
  async drain(): Promise<void> {
    // Until a pass finds nothing and nothing runs: a job may queue more due work as it finishes (a CSV
    // row its charge), the background loop's as well as ours.
    for (;;) {
      let found = false;
      while (await this.#tick()) found = true;
      const running = [...this.#inFlight];
      if (!found && running.length === 0) return;
      await Promise.all(running);
    }
  }

  wake(): void {
    this.#loop.wake();
  }

  async stop(): Promise<void> {
    this.#loop.stop();
    await Promise.all(this.#inFlight);
  }

  #tick(): Promise<boolean> {
    const next = this.#ticking.then(() => this.#claimAndStart());
    this.#ticking = next.catch(() => false);
    return next;
  }

  /** Claims and starts a batch of due jobs; true when it found any. */
  async #claimAndStart(): Promise<boolean> {
    // 64 jobs in flight: on SQLite their writes share group commits with the API's, and with 16
    // the async engine completed ~100 charges/s while accepting ~250/s (docs/operations/benchmark.md#the-async-engine).
    const concurrency = this.options.concurrency ?? 64;
    if (this.#jobsInFlight >= concurrency) {
      await Promise.race(this.#inFlight);
      return true;
    }
    const now = this.ctx.clock.now();
    const leaseUntil = new Date(now.getTime() + (this.options.leaseMs ?? limits.jobLeaseMsDefault)).toISOString();
    const claimed = await claimDueJobs(this.ctx.tx, now, leaseUntil, concurrency - this.#jobsInFlight);
    const batches = new Map<JobKind, ClaimedJob[]>();
    for (const job of claimed) {
      if (this.#batchHandlers.has(job.kind)) batches.set(job.kind, [...(batches.get(job.kind) ?? []), job]);
      else this.#track(this.#run(job), 1);
    }
    for (const [kind, jobs] of batches) this.#track(this.#runBatch(kind, jobs), jobs.length);
    return claimed.length > 0;
  }

  #track(running: Promise<void>, jobs: number): void {
    this.#jobsInFlight += jobs;
    const run = running.finally(() => {
      this.#inFlight.delete(run);
      this.#jobsInFlight -= jobs;
    });
    this.#inFlight.add(run);
  }

  async #runBatch(kind: JobKind, jobs: ClaimedJob[]): Promise<void> {
    const handler = this.#batchHandlers.get(kind)!;
    let results: PromiseSettledResult<JobOutcome>[];
    try {
      results = await handler(jobs.map((job) => ({ refId: job.refId, attempt: job.attempts })));
    } catch (error) {
      results = jobs.map(() => ({ status: "rejected", reason: error }));
    }
    const outcomes = jobs.map((job, i) => ({ job, outcome: this.#outcomeOf(job, results[i]) }));
    await recordJobOutcomes(this.ctx.tx, outcomes).catch((error) =>
      // Unrecorded, the leases lapse and the jobs run again: handlers are idempotent.
      this.logger.error(
        { err: error, kind, jobs: jobs.length },
        "job outcomes could not be recorded; they run again after their lease",
      ),
    );
  }

  /** A batch's answer for one job as the outcome recorded, a failure retried as in `#run`. */
  #outcomeOf(job: ClaimedJob, result: PromiseSettledResult<JobOutcome> | undefined): JobOutcome {
    if (result?.status === "fulfilled") {
      this.ctx.metrics?.jobRan(job.kind, "done" in result.value ? "done" : "retry");
      return result.value;
    }
    this.ctx.metrics?.jobRan(job.kind, "error");
    this.logger.error({ err: result?.reason, job: job.id, kind: job.kind }, "job failed; retrying");
    return this.#retryAfterFailure(job);
  }

  #retryAfterFailure(job: ClaimedJob): JobOutcome {
    const backoffMs = Math.min(limits.jobRetryFirstDelayMs * 2 ** Math.min(job.attempts, 8), limits.jobRetryDelayMaxMs);
    return { retryAt: new Date(this.ctx.clock.now().getTime() + backoffMs) };
  }

  async #run(job: ClaimedJob): Promise<void> {
    const handler = this.#handlers.get(job.kind);
    let outcome: JobOutcome;
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      outcome = await handler(job.refId, job.attempts);
      this.ctx.metrics?.jobRan(job.kind, "done" in outcome ? "done" : "retry");
    } catch (error) {
      this.ctx.metrics?.jobRan(job.kind, "error");
      this.logger.error({ err: error, job: job.id, kind: job.kind }, "job failed; retrying");
      outcome = this.#retryAfterFailure(job);
    }
    await recordJobOutcome(this.ctx.tx, job, outcome).catch((error) =>
      // Unrecorded, the lease lapses and the job runs again: handlers are idempotent.
      this.logger.error(
        { err: error, job: job.id, kind: job.kind },
        "job outcome could not be recorded; it runs again after its lease",
      ),
    );
  }
}
