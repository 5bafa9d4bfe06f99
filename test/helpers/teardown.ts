import type { ChildProcess } from "node:child_process";

/**
 * What a test file started and must not outlive it: spawned processes, in-process servers, fresh
 * databases (SQLite folders, PostgreSQL schemas). The helpers register each one as they create it
 * and unregister it when the test stops it; whatever is left when the file ends (a test timed out
 * or threw before its own cleanup) is torn down by test/helpers/teardown-setup.ts, a setup file of
 * every project (vitest.config.ts), after the file's own afterAll hooks.
 *
 * Order matters: processes die first, then servers close, then databases go, so no connection
 * holds a lock the `drop schema` waits for.
 */
export type TeardownPhase = "process" | "service" | "database";

const phases: readonly TeardownPhase[] = ["process", "service", "database"];
const pending = new Map<TeardownPhase, Set<() => Promise<unknown>>>(phases.map((p) => [p, new Set()]));
const children = new Set<ChildProcess>();

/**
 * Registers `release` to run when the test file ends, unless the returned function (which runs it
 * now, once) ran first. The helpers hand that function out as their `stop`/`cleanup`.
 */
export function registerTeardown(phase: TeardownPhase, release: () => Promise<unknown>): () => Promise<void> {
  let running: Promise<void> | undefined;
  const once = () => {
    pending.get(phase)!.delete(once);
    running ??= release().then(() => undefined);
    return running;
  };
  pending.get(phase)!.add(once);
  return once;
}

/** A spawned process: killed at the end of the file (and, SIGKILL, if the test process exits first). */
export function registerChild(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  children.add(child);
  const release = registerTeardown("process", () => {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    return exited;
  });
  child.once("exit", () => {
    children.delete(child);
    void release();
  });
}

// A worker that exits without running the hooks still takes its processes with it.
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** Everything still registered, phase by phase; a failure is reported after all ran. */
export async function runTeardowns(): Promise<number> {
  let released = 0;
  const failures: unknown[] = [];
  for (const phase of phases) {
    const left = [...pending.get(phase)!];
    released += left.length;
    for (const result of await Promise.allSettled(left.map((release) => release())))
      if (result.status === "rejected") failures.push(result.reason);
  }
  if (failures.length > 0) throw new AggregateError(failures, "teardown of what a test left behind failed");
  return released;
}

/** How many things are registered and not yet released (for the harness's own test). */
export function pendingTeardowns(): number {
  return phases.reduce((sum, phase) => sum + pending.get(phase)!.size, 0);
}
