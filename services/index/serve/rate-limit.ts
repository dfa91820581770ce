/**
 * Per-client token buckets for the dynamic index endpoints (spec §8: static files have no limit, dynamic
 * endpoints are limited per client IP). A bucket holds up to `burst` tokens and refills at `ratePerSecond`;
 * each request takes one. The clock is injectable.
 */

export interface RateLimitOptions {
  ratePerSecond: number;
  burst: number;
  /** Milliseconds; defaults to a monotonic clock. */
  now?: () => number;
  /** Most clients tracked at once; beyond it the longest-idle buckets are dropped (they were full anyway). */
  maxClients?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export type TakeResult = { ok: true; remaining: number } | { ok: false; retryAfterS: number };

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;
  private readonly maxClients: number;

  constructor(readonly opts: RateLimitOptions) {
    if (!(opts.ratePerSecond > 0) || !Number.isFinite(opts.ratePerSecond)) throw new RangeError('ratePerSecond must be a positive number');
    if (!(opts.burst >= 1) || !Number.isFinite(opts.burst)) throw new RangeError('burst must be at least 1');
    this.now = opts.now ?? (() => performance.now());
    this.maxClients = opts.maxClients ?? 100_000;
  }

  /** Take one token for `client`. */
  take(client: string): TakeResult {
    const t = this.now();
    let b = this.buckets.get(client);
    if (b === undefined) {
      if (this.buckets.size >= this.maxClients) this.evict(t);
      b = { tokens: this.opts.burst, at: t };
    } else {
      b.tokens = Math.min(this.opts.burst, b.tokens + (Math.max(0, t - b.at) / 1000) * this.opts.ratePerSecond);
      b.at = t;
      // Re-insert so the map stays ordered by last use (oldest first).
      this.buckets.delete(client);
    }
    this.buckets.set(client, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true, remaining: Math.floor(b.tokens) };
    }
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((1 - b.tokens) / this.opts.ratePerSecond)) };
  }

  private evict(t: number): void {
    for (const [key, b] of this.buckets) {
      if (this.buckets.size < this.maxClients) break;
      // The oldest entries come first; one idle long enough to be full again loses nothing by being dropped.
      if (b.tokens + ((t - b.at) / 1000) * this.opts.ratePerSecond >= this.opts.burst || this.buckets.size >= this.maxClients)
        this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}
