import { releaseAttempt, reserveAttempt } from "../domain/failure-lock.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { deleteStaleAttemptRuns, lockAttemptRun, saveAttemptRun } from "../storage/sign-in-attempts.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";

/**
 * Counting sign-in attempts (docs/reference/security.md#dashboard-sign-in): each password or code
 * is counted before it is checked, and a success gives its attempt back.
 */

/** A wrong code, saying how many more are checked before the 15-minute lock (ErrorInfo metadata attemptsLeft). */
export const wrongCode = (attemptsLeft: number) =>
  new RequestRefusal(
    "invalid",
    `invalid TOTP or recovery code (${attemptsLeft} attempt${attemptsLeft === 1 ? "" : "s"} left before a 15-minute lock)`,
    { reason: "TOTP_CODE_INVALID", facts: { attemptsLeft: String(attemptsLeft) } },
  );

export const lockedOut = (what: string, until: Date, now: Date, reason: string) =>
  new RequestRefusal("rate_limited", `${what} until ${until.toISOString()}`, {
    reason,
    retryAfterSeconds: Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000)),
  });

/**
 * Counts one attempt of `key` before it is checked, committed before the check runs: the end of
 * the lock when the run is locked (nothing counted), else null. Stale runs are cleared on the way.
 */
export async function reserve(
  ctx: FlowContext,
  key: string,
  now: Date,
  limits: { max: number; lockMs: number },
): Promise<{ lockedUntil: Date | null; attemptsLeft: number }> {
  return ctx.tx.write(async (trx) => {
    await deleteStaleAttemptRuns(trx, new Date(now.getTime() - limits.lockMs).toISOString(), now.toISOString());
    const run = await lockAttemptRun(ctx.tx, trx, key, now.toISOString());
    const next = reserveAttempt(run, now, limits);
    if (!next) return { lockedUntil: run.lockedUntil, attemptsLeft: 0 };
    await saveAttemptRun(trx, key, next);
    // Counted already: if this attempt fails, this many more are checked before the lock.
    return { lockedUntil: null, attemptsLeft: Math.max(0, limits.max - next.failures) };
  });
}

/** Gives back the attempt a success reserved (inside the success's own transaction). */
export async function release(ctx: FlowContext, trx: Tx, key: string, limits: { max: number }): Promise<void> {
  const run = await lockAttemptRun(ctx.tx, trx, key, ctx.clock.now().toISOString());
  await saveAttemptRun(trx, key, releaseAttempt(run, limits));
}
