import type { AttemptRun } from "../domain/failure-lock.js";
import type { Transactor, Tx } from "./transactor.js";

/** The attempt run of a key, its row locked until the transaction ends (created empty if new). */
export async function lockAttemptRun(tx: Transactor, trx: Tx, key: string, nowIso: string): Promise<AttemptRun> {
  await trx
    .insertInto("sign_in_attempts")
    .values({ key, failures: 0, locked_until: null, last_attempt_at: nowIso })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  const row = await tx
    .lockRows(trx.selectFrom("sign_in_attempts").selectAll().where("key", "=", key))
    .executeTakeFirstOrThrow();
  return {
    failures: row.failures,
    lockedUntil: row.locked_until ? new Date(row.locked_until) : null,
    lastAttemptAt: row.failures > 0 ? new Date(row.last_attempt_at) : null,
  };
}

export async function saveAttemptRun(trx: Tx, key: string, run: AttemptRun): Promise<void> {
  await trx
    .updateTable("sign_in_attempts")
    .set({
      failures: run.failures,
      locked_until: run.lockedUntil?.toISOString() ?? null,
      ...(run.lastAttemptAt ? { last_attempt_at: run.lastAttemptAt.toISOString() } : {}),
    })
    .where("key", "=", key)
    .execute();
}

/** Runs whose last attempt is older than `beforeIso` and that hold no lock: they count nothing any more. */
export async function deleteStaleAttemptRuns(trx: Tx, beforeIso: string, nowIso: string): Promise<void> {
  await trx
    .deleteFrom("sign_in_attempts")
    .where("last_attempt_at", "<", beforeIso)
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<=", nowIso)]))
    .execute();
}
