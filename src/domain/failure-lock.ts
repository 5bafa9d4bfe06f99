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
