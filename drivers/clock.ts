/**
 * Clocks behind the `Clock` seam: the system clock, a manual clock for tests (time moves only when told) and an
 * accelerated clock for demos (simulated time runs `speed` times faster than real time).
 */
import type { Clock } from './types.js';

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
};

interface ManualTimer {
  id: number;
  at: number;
  seq: number;
  fn: () => void;
  everyMs?: number;
}

/**
 * A clock that only moves when `advance` is called. Timers fire in due order (ties in creation order) and the
 * clock reads each timer's due time while it runs, so a timer that schedules another sees consistent time.
 */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private seq = 0;
  private readonly timers = new Map<number, ManualTimer>();
  /**
   * What `advanceAsync` also waits for after every timer, besides a trip through the event loop: e.g. the heat
   * guard's acknowledgement that a heater line write is on the wire, so that simulated time does not run ahead
   * of an output another process holds.
   */
  settleWith: (() => Promise<void>) | undefined;

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    return this.add(fn, Math.max(0, ms));
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  setInterval(fn: () => void, ms: number): unknown {
    return this.add(fn, Math.max(1, ms), Math.max(1, ms));
  }

  clearInterval(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Number of pending timers (tests use it to check that nothing leaks). */
  get pending(): number {
    return this.timers.size;
  }

  /** Move time forward by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const target = this.current + Math.max(0, ms);
    for (let t = this.nextDue(target); t; t = this.nextDue(target)) {
      this.current = Math.max(this.current, t.at);
      this.fire(t);
    }
    this.current = target;
  }

  /**
   * Like `advance`, but lets promises and I/O callbacks settle after every timer (async sampling loops need
   * it): each fired timer is followed by a trip through the real event loop.
   */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.current + Math.max(0, ms);
    await settle();
    for (let t = this.nextDue(target); t; t = this.nextDue(target)) {
      this.current = Math.max(this.current, t.at);
      this.fire(t);
      await settle();
      if (this.settleWith) await this.settleWith();
    }
    this.current = target;
    await settle();
  }

  private add(fn: () => void, ms: number, everyMs?: number): number {
    const id = this.nextId++;
    this.timers.set(id, { id, at: this.current + ms, seq: this.seq++, fn, everyMs });
    return id;
  }

  private nextDue(target: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const t of this.timers.values()) {
      if (t.at > target) continue;
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }

  private fire(t: ManualTimer): void {
    if (t.everyMs !== undefined) {
      t.at += t.everyMs;
      t.seq = this.seq++;
    } else {
      this.timers.delete(t.id);
    }
    t.fn();
  }
}

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Simulated time that runs `speed` times faster than `base` (real time by default): `now()` starts at the
 * base's current time and moves `speed` ms per real ms; timers are scaled down accordingly.
 */
export function acceleratedClock(speed: number, base: Clock = systemClock): Clock {
  if (!Number.isFinite(speed) || speed <= 0) throw new RangeError(`clock speed must be a positive number, got ${speed}`);
  const realStart = base.now();
  const simStart = realStart;
  return {
    now: () => simStart + (base.now() - realStart) * speed,
    setTimeout: (fn, ms) => base.setTimeout(fn, Math.max(0, ms) / speed),
    clearTimeout: (h) => base.clearTimeout(h),
    setInterval: (fn, ms) => base.setInterval(fn, Math.max(1, ms / speed)),
    clearInterval: (h) => base.clearInterval(h),
  };
}
