/** A count of consecutive failures and the lock it brings (wrong passwords, wrong TOTP codes). */
export interface FailureLock {
  failures: number;
  lockedUntil: Date | null;
}

/**
 * The count after one more failure: `max` failures in a row lock for `lockMs`. A lapsed lock starts
 * the count again.
 */
export function afterFailure(state: FailureLock, now: Date, limits: { max: number; lockMs: number }): FailureLock {
  const lapsed = state.lockedUntil !== null && now >= state.lockedUntil;
  const failures = (lapsed ? 0 : state.failures) + 1;
  if (failures >= limits.max) return { failures, lockedUntil: new Date(now.getTime() + limits.lockMs) };
  return { failures, lockedUntil: lapsed ? null : state.lockedUntil };
}

export function isLocked(state: Pick<FailureLock, "lockedUntil">, now: Date): boolean {
  return state.lockedUntil !== null && now < state.lockedUntil;
}

/** A run of attempts counted before they are checked (sign-in): the lock's state and the last attempt. */
export interface AttemptRun extends FailureLock {
  lastAttemptAt: Date | null;
}

/**
 * Reserves one attempt before it is checked, so that however many arrive at once at most `max`
 * are checked: undefined while locked, else the run with this attempt counted (the `max`-th
 * locks for `lockMs`). A run is forgotten `lockMs` after its last attempt.
 */
export function reserveAttempt(
  state: AttemptRun,
  now: Date,
  limits: { max: number; lockMs: number },
): AttemptRun | undefined {
  if (isLocked(state, now)) return undefined;
  const stale = state.lastAttemptAt !== null && now.getTime() - state.lastAttemptAt.getTime() >= limits.lockMs;
  const next = afterFailure(stale ? { failures: 0, lockedUntil: null } : state, now, limits);
  return { ...next, lastAttemptAt: now };
}

/** Gives back the attempt a success had reserved: it no longer counts, nor any lock it brought. */
export function releaseAttempt(state: AttemptRun, limits: { max: number }): AttemptRun {
  const failures = Math.max(0, state.failures - 1);
  return { ...state, failures, lockedUntil: failures < limits.max ? null : state.lockedUntil };
}
