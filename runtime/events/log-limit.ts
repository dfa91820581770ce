/**
 * Repeated log lines, rate-limited: a hostile or broken peer (a client that publishes on a forbidden topic in a
 * loop, a webhook receiver that always fails) must not fill the log. `LogLimiter.allow(key)` lets the first
 * `burst` lines of a key through in each `windowMs`, then drops the rest of that window and reports how many it
 * dropped with the next line it lets through. The keys it remembers are bounded (oldest forgotten first).
 */
export interface LogLimitOptions {
  /** Lines of one key let through per window (default 5). */
  burst?: number;
  /** Window length in ms (default 60 s). */
  windowMs?: number;
  /** Most keys remembered (default 1000). */
  maxKeys?: number;
  now?: () => number;
}

interface Slot {
  start: number;
  count: number;
  dropped: number;
}

export class LogLimiter {
  private readonly slots = new Map<string, Slot>();
  private readonly burst: number;
  private readonly windowMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(o: LogLimitOptions = {}) {
    this.burst = o.burst ?? 5;
    this.windowMs = o.windowMs ?? 60_000;
    this.maxKeys = o.maxKeys ?? 1000;
    this.now = o.now ?? Date.now;
  }

  /**
   * Whether a line of `key` may be logged now: `false` to drop it, otherwise the number of lines of this key
   * dropped since the last one let through (0 when none), to be added to the line as `suppressed`.
   */
  allow(key: string): false | number {
    const now = this.now();
    let slot = this.slots.get(key);
    if (slot && now - slot.start >= this.windowMs) {
      const dropped = slot.dropped;
      slot = { start: now, count: 0, dropped };
      this.slots.delete(key);
      this.slots.set(key, slot);
    }
    if (!slot) {
      slot = { start: now, count: 0, dropped: 0 };
      this.slots.set(key, slot);
      if (this.slots.size > this.maxKeys) this.slots.delete(this.slots.keys().next().value as string);
    }
    if (slot.count >= this.burst) {
      slot.dropped++;
      return false;
    }
    slot.count++;
    const dropped = slot.dropped;
    slot.dropped = 0;
    return dropped;
  }

  /** Keys currently remembered (tests, memory checks). */
  get size(): number {
    return this.slots.size;
  }
}

/** Wrap a `(msg, detail)` logger so that repeated lines (same `keyOf`) are rate-limited by `limiter`. */
export function limitedLog<D extends Record<string, unknown>>(
  limiter: LogLimiter,
  log: ((msg: string, detail?: D) => void) | undefined,
  keyOf: (msg: string, detail?: D) => string,
): (msg: string, detail?: D) => void {
  return (msg, detail) => {
    if (!log) return;
    const verdict = limiter.allow(keyOf(msg, detail));
    if (verdict === false) return;
    log(msg, verdict > 0 ? ({ ...(detail ?? {}), suppressed: verdict } as unknown as D) : detail);
  };
}
