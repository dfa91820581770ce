/**
 * Work for when a server has gone quiet: `whenQuiet` calls `fn` once, after a stretch of `quietMs` during which no
 * request arrived. The recipe API gives back what its catalog load left behind (a compacting full collection, tens
 * of ms for 2,000 recipes) this way, after it is listening, instead of before its first answer.
 */
import type { EventEmitter } from 'node:events';

export interface QuietTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: QuietTimers = {
  setTimeout: (fn, ms) => {
    const h = setTimeout(fn, ms);
    h.unref(); // never what keeps the process alive
    return h;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * Calls `fn` once `server` has seen no `request` event for `quietMs`; returns a function that cancels it. A
 * request that arrives during the wait starts the wait again.
 */
export function whenQuiet(server: EventEmitter, quietMs: number, fn: () => void, timers: QuietTimers = realTimers): () => void {
  let seen = 0;
  let handle: unknown;
  const onRequest = () => {
    seen++;
  };
  const stop = () => {
    server.off('request', onRequest);
    if (handle !== undefined) timers.clearTimeout(handle);
    handle = undefined;
  };
  const arm = () => {
    const before = seen;
    handle = timers.setTimeout(() => {
      if (seen !== before) return arm();
      stop();
      fn();
    }, quietMs);
  };
  server.on('request', onRequest);
  arm();
  return stop;
}
