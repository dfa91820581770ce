/**
 * The hub's sync schedule: a first sync soon after start, then one every interval with ±jitter (so a fleet of
 * devices does not hit an index in step). Timers and randomness are injectable for tests.
 */

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => {
    const h = setTimeout(fn, ms);
    h.unref();
    return h;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface SchedulerOptions {
  intervalMs: number;
  /** Fraction of the interval the delay may vary by, each way (default 0.1). */
  jitter?: number;
  /** Delay of the first sync (default 1 s). */
  initialDelayMs?: number;
  timers?: Timers;
  random?: () => number;
  now?: () => number;
  /** Told when the next sync is due. */
  onScheduled?: (at: number) => void;
}

export class SyncScheduler {
  private handle: unknown;
  private stopped = true;
  private readonly timers: Timers;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly o: SchedulerOptions,
  ) {
    this.timers = o.timers ?? realTimers;
  }

  /** The delay before the next scheduled sync: the interval ± jitter. */
  nextDelay(): number {
    const j = Math.min(Math.max(this.o.jitter ?? 0.1, 0), 0.5);
    const r = (this.o.random ?? Math.random)();
    return Math.round(this.o.intervalMs * (1 - j + 2 * j * r));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.o.initialDelayMs ?? 1000);
  }

  stop(): void {
    this.stopped = true;
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }

  private schedule(delay: number): void {
    this.o.onScheduled?.((this.o.now ?? Date.now)() + delay);
    this.handle = this.timers.setTimeout(() => {
      this.handle = undefined;
      void this.run()
        .catch(() => {})
        .finally(() => {
          if (!this.stopped) this.schedule(this.nextDelay());
        });
    }, delay);
  }
}
