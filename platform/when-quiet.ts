/**
 * Run housekeeping once a server is quiet, so that a start's first answers never wait for it: the recipe API
 * writes its index cache after it serves, not before (services/recipe-api/cli.ts).
 *
 * Quiet means no request in flight and none begun or ended for `quietMs` (a server that gets no request at all is
 * quiet `quietMs` after the call). It is looked at every `quietMs` of the clock, so the work runs between `quietMs`
 * and twice that after the last answer; after `maxMs` it runs whatever the traffic, so a server that is never
 * quiet still does it once. The work runs from a timer: it must not throw.
 */
import type { Server } from 'node:http';

/** The timers of a clock (the device clock has them; platform/ does not import drivers/). */
export interface TimeoutClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemTimers: TimeoutClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface WhenQuietOptions {
  clock?: TimeoutClock;
  /** How long without a request makes the server quiet, in the clock's ms (default 200). */
  quietMs?: number;
  /** The latest the work runs, in the clock's ms after the call (default 5,000). */
  maxMs?: number;
}

export interface Pending {
  /** Whether the work ran. */
  readonly done: boolean;
  /** Never run it. */
  cancel(): void;
}

/** Run `work` once `server` is quiet (see above), once. */
export function whenQuiet(server: Server, work: () => void, opts: WhenQuietOptions = {}): Pending {
  const clock = opts.clock ?? systemTimers;
  const quietMs = opts.quietMs ?? 200;
  const maxMs = opts.maxMs ?? 5000;
  const start = clock.now();
  let last = start;
  let inFlight = 0;
  let state: 'waiting' | 'done' | 'cancelled' = 'waiting';
  let timer: unknown;
  const onRequest = (_req: unknown, res: NodeJS.EventEmitter) => {
    inFlight++;
    last = clock.now();
    res.once('close', () => {
      inFlight--;
      last = clock.now();
    });
  };
  const finish = (next: 'done' | 'cancelled') => {
    if (state !== 'waiting') return false;
    state = next;
    clock.clearTimeout(timer);
    server.off('request', onRequest);
    return true;
  };
  const look = () => {
    const now = clock.now();
    if ((inFlight === 0 && now - last >= quietMs) || now - start >= maxMs) {
      if (finish('done')) work();
    } else timer = clock.setTimeout(look, quietMs);
  };
  // Before the server's own handler, so that a request is counted before anything can answer it.
  server.prependListener('request', onRequest);
  timer = clock.setTimeout(look, quietMs);
  return {
    get done() {
      return state === 'done';
    },
    cancel() {
      finish('cancelled');
    },
  };
}
