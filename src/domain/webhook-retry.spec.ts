import { describe, expect, it } from "vitest";
import { nextRetryAt, retryCeilingMs, retryWindowMs } from "./webhook-retry.js";

const start = new Date("2025-04-01T00:00:00.000Z");
const hour = 3_600_000;

describe("webhook retry schedule", () => {
  it("publishes ceilings of 30 s, 1 m, 2 m, 5 m, 10 m, 30 m, 1 h, 2 h, 4 h, then 8 h", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 25].map(retryCeilingMs)).toEqual([
      30_000,
      60_000,
      120_000,
      300_000,
      600_000,
      1_800_000,
      hour,
      2 * hour,
      4 * hour,
      8 * hour,
      8 * hour,
      8 * hour,
    ]);
  });

  it("waits a random part of the ceiling (full jitter), at least a second", () => {
    const at = (random: number, failedAttempts = 4) =>
      nextRetryAt({ failedAttempts, windowStartedAt: start, failedAt: start, random })!.getTime() - start.getTime();
    expect(at(0)).toBe(1_000);
    expect(at(0.5)).toBe(150_000);
    expect(at(0.999_999)).toBeLessThanOrEqual(300_000);
  });

  it("keeps retrying for 3 days from the first attempt, then gives up", () => {
    const justBefore = new Date(start.getTime() + retryWindowMs - 1);
    const atEnd = new Date(start.getTime() + retryWindowMs);
    expect(
      nextRetryAt({ failedAttempts: 20, windowStartedAt: start, failedAt: justBefore, random: 0.9 }),
    ).toBeInstanceOf(Date);
    expect(nextRetryAt({ failedAttempts: 20, windowStartedAt: start, failedAt: atEnd, random: 0.9 })).toBeUndefined();
  });

  it("with the longest waits, the last attempt lands between 3 days and 3 days 8 hours", () => {
    let failedAt = start;
    let attempts = 1;
    for (;;) {
      const next = nextRetryAt({ failedAttempts: attempts, windowStartedAt: start, failedAt, random: 0.999_999 });
      if (!next) break;
      failedAt = next;
      attempts++;
    }
    const elapsed = failedAt.getTime() - start.getTime();
    expect(elapsed).toBeGreaterThanOrEqual(retryWindowMs);
    expect(elapsed).toBeLessThan(retryWindowMs + 8 * hour);
  });
});
