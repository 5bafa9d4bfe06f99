import { describe, expect, it } from "vitest";
import { afterFailure, isLocked } from "./failure-lock.js";

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
