/**
 * A per-client token bucket for the unauthenticated proof endpoints: each verify makes the registry query
 * DNS or fetch a URL, so one client may not make it do so without bound. Over the limit: 429 `rate-limited`
 * with `Retry-After`. The clock is injectable.
 */
import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../../../platform/http/problems.js';

export interface RateLimitOptions {
  /** Requests per minute per client address (the bucket refills continuously). */
  perMinute: number;
  now: () => number;
}

export function rateLimiter(opts: RateLimitOptions) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const rate = opts.perMinute / 60_000;
  return async (req: FastifyRequest): Promise<void> => {
    const now = opts.now();
    const key = req.ip;
    const b = buckets.get(key) ?? { tokens: opts.perMinute, at: now };
    b.tokens = Math.min(opts.perMinute, b.tokens + (now - b.at) * rate);
    b.at = now;
    if (b.tokens < 1) {
      buckets.set(key, b);
      const wait = Math.ceil((1 - b.tokens) / rate / 1000);
      throw new ProblemError(
        'rate-limited',
        `too many proof requests from this address; retry in ${wait} s`,
        {},
        { 'Retry-After': String(wait) },
      );
    }
    b.tokens -= 1;
    buckets.set(key, b);
    if (buckets.size > 10_000) for (const [k, v] of buckets) if (now - v.at > 60_000) buckets.delete(k);
  };
}
