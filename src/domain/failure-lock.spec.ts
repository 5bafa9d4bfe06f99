import { describe, expect, it } from "vitest";
import { afterFailure, isLocked, releaseAttempt, reserveAttempt, type AttemptRun } from "./failure-lock.js";

const limits = { max: 3, lockMs: 15 * 60_000 };
const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));

describe("afterFailure", () => {
  it("locks at the max-th failure in a row, for lockMs", () => {
    let state = { failures: 0, lockedUntil: null as Date | null };
    state = afterFailure(state, at(0), limits);
    state = afterFailure(state, at(1), limits);
    expect(state).toEqual({ failures: 2, lockedUntil: null });
    state = afterFailure(state, at(2), limits);
    expect(state).toEqual({ failures: 3, lockedUntil: at(17) });
    expect(isLocked(state, at(16))).toBe(true);
    expect(isLocked(state, at(17))).toBe(false);
  });

  it("starts the count again after a lock lapsed", () => {
    expect(afterFailure({ failures: 3, lockedUntil: at(17) }, at(20), limits)).toEqual({
      failures: 1,
      lockedUntil: null,
    });
  });
});

describe("reserveAttempt and releaseAttempt", () => {
  const fresh: AttemptRun = { failures: 0, lockedUntil: null, lastAttemptAt: null };

  it("grants max attempts however fast they come, the max-th locking, then refuses", () => {
    let state = fresh;
    for (let i = 0; i < limits.max; i++) state = reserveAttempt(state, at(0), limits)!;
    expect(state).toEqual({ failures: 3, lockedUntil: at(15), lastAttemptAt: at(0) });
    expect(reserveAttempt(state, at(14), limits)).toBeUndefined();
    expect(reserveAttempt(state, at(15), limits)).toEqual({ failures: 1, lockedUntil: null, lastAttemptAt: at(15) });
  });

  it("forgets a run lockMs after its last attempt", () => {
    const two = { failures: 2, lockedUntil: null, lastAttemptAt: at(0) };
    expect(reserveAttempt(two, at(14), limits)?.failures).toBe(3);
    expect(reserveAttempt(two, at(15), limits)?.failures).toBe(1);
  });

  it("a success gives its own attempt back, and the lock it brought", () => {
    expect(releaseAttempt({ failures: 3, lockedUntil: at(15), lastAttemptAt: at(0) }, limits)).toEqual({
      failures: 2,
      lockedUntil: null,
      lastAttemptAt: at(0),
    });
    expect(releaseAttempt({ failures: 0, lockedUntil: null, lastAttemptAt: at(0) }, limits).failures).toBe(0);
  });
});
