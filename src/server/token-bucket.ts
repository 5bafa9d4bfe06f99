/**
 * Per-caller token buckets: each caller may spend `burst` requests at once and earns `ratePerSecond`
 * back. Time comes from the caller (the service clock), so tests refill a bucket by moving it.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    /** Buckets kept at most; the least recently used are dropped (they were full again anyway, mostly). */
    private readonly maxCallers = 100_000,
  ) {}

  /** Takes one token for `caller`: 0 when granted, else the whole seconds until one is available. */
  take(caller: string, nowMs: number): number {
    const bucket = this.buckets.get(caller) ?? { tokens: this.burst, at: nowMs };
    this.buckets.delete(caller);
    bucket.tokens = Math.min(this.burst, bucket.tokens + (Math.max(0, nowMs - bucket.at) / 1000) * this.ratePerSecond);
    bucket.at = nowMs;
    this.buckets.set(caller, bucket);
    if (this.buckets.size > this.maxCallers) this.buckets.delete(this.buckets.keys().next().value as string);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
  }
}
