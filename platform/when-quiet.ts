/**
 * Run housekeeping once a server has answered and gone quiet, so that a start's first answers never wait for it:
 * the recipe API writes its index cache and gives back what its catalog load left (a compacting collection) after
 * it serves, not before (services/recipe-api/cli.ts).
 *
 * Quiet means no request in flight and none begun or ended for `quietMs`. It is looked at every `quietMs` of the
 * clock; after `maxMs` the work runs whatever the traffic, so a server that is never quiet still does it once.
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
  server.on('request', onRequest);
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
