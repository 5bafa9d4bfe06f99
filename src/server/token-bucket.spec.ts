import { describe, expect, it } from "vitest";
import { TokenBuckets } from "./token-bucket.js";

describe("TokenBuckets", () => {
  it("grants the burst at once, then one request per 1/rate seconds", () => {
    const buckets = new TokenBuckets(2, 3);
    expect([0, 0, 0].map(() => buckets.take("a", 0))).toEqual([0, 0, 0]);
    expect(buckets.take("a", 0)).toBe(1);
    expect(buckets.take("a", 499)).toBe(1);
    expect(buckets.take("a", 500)).toBe(0);
    expect(buckets.take("a", 500)).toBe(1);
  });

  it("keeps callers apart and never refills beyond the burst", () => {
    const buckets = new TokenBuckets(1, 2);
    buckets.take("a", 0);
    buckets.take("a", 0);
    expect(buckets.take("a", 0)).toBe(1);
    expect(buckets.take("b", 0)).toBe(0);
    expect([0, 0, 0].map(() => buckets.take("b", 3_600_000))).toEqual([0, 0, 1]);
  });

  it("says how many whole seconds until the next token", () => {
    const buckets = new TokenBuckets(0.1, 1);
    buckets.take("a", 0);
    expect(buckets.take("a", 0)).toBe(10);
    expect(buckets.take("a", 5_000)).toBe(5);
  });

  it("forgets the least recently used caller beyond its capacity", () => {
    const buckets = new TokenBuckets(1, 1, 2);
    buckets.take("a", 0);
    buckets.take("b", 0);
    buckets.take("c", 0);
    // "a" was dropped: it starts again with a full bucket.
    expect(buckets.take("a", 0)).toBe(0);
    expect(buckets.take("c", 0)).toBe(1);
  });
});
