/**
 * One full garbage collection once a burst of work is over: the hub's part of keeping memory bounded after a
 * hostile or merely busy spell (issue: a Pi-sized footprint).
 *
 * V8 collects its old generation when it grows, and its memory reducer runs a few more collections some seconds
 * after it last grew, once. A burst of requests that ends soon after the reducer ran leaves its garbage in the old
 * generation, resident, until the heap grows again, which an idle hub may not do for hours. Measured with
 * `npm run bench -- memory` (docs/performance.md): 30 s after the hostile mix the hub held 3–8 MB of heap that
 * forced collections freed. So every `everyMs` of the device's clock the collector looks at two things: whether
 * the event loop was idle over the last period (its utilization below `idleUtilization`), and whether the heap
 * has grown by `growthBytes` since the last full collection it saw. When both hold it collects (two or three full
 * collections, below; tens of milliseconds each here, the loop watchdog allows 700) and takes the heap after it
 * as the new mark. A heap that shrank
 * by itself (V8 collected) moves the mark down, so there is no second collection for the same garbage, and a
 * busy loop is never interrupted. It does not touch compiled code: V8 drops code only in its own collections.
 */
import { performance } from 'node:perf_hooks';
import { collectGarbageNow } from './young-generation.js';

/** The timers of the device clock (drivers/types.ts' Clock has them; platform/ does not import drivers/). */
export interface IntervalClock {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface IdleCollectorOptions {
  clock: IntervalClock;
  /** How often to look, in the clock's ms (default 10 s). */
  everyMs?: number;
  /** Heap growth since the last full collection that makes another worth its pause (default 4 MiB). */
  growthBytes?: number;
  /** The event loop counts as idle below this utilization over the last period (default 0.05). */
  idleUtilization?: number;
  /** What is measured and done, injectable for tests (default: V8's heap used, the loop's utilization, a full GC). */
  heapUsed?: () => number;
  utilization?: () => number;
  collect?: () => void;
  /** Told of each collection: the heap used before and after, bytes. */
  onCollect?: (before: number, after: number) => void;
}

export interface IdleCollector {
  /** Collections run so far. */
  readonly collections: number;
  stop(): void;
}

/**
 * The event loop's utilization since the previous call (0 to 1). A period under a second of real time counts as
 * busy (1): a clock that runs faster than real time (a simulation, a test's manual clock) says nothing of idleness.
 */
function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const d = performance.eventLoopUtilization(now, last);
    last = now;
    return d.idle + d.active < 1000 ? 1 : d.utilization;
  };
}

/**
 * Two full collections, and a third while the heap's committed size still shrinks. The first frees the burst's
 * objects but leaves the pages they were on half empty, often without giving back a page; V8 picks the fragmented
 * pages to compact at the start of a collection, so the second moves what lives there and returns the pages.
 * Measured in a fresh process after 600,000 objects became garbage: heap committed 118.8 MB, 95.1 after one
 * collection, 56.1 after two; resident 165 → 141 and 100 MB. In the hub 30 s after the mix (`npm run bench --
 * memory`): one collection left the heap at 54.1 MB committed, two more forced ones brought it to 47.6.
 */
function collectUntilCompact(): void {
  collectGarbageNow();
  const committed = process.memoryUsage().heapTotal;
  collectGarbageNow();
  const now = process.memoryUsage().heapTotal;
  if (committed - now >= 1048576) collectGarbageNow();
}

/**
 * Start the collector. `HEARTH_IDLE_GC=off` in `env` returns one that never collects (to compare, or for a
 * deployment that prefers V8's own timing).
 */
export function startIdleCollector(o: IdleCollectorOptions, env: NodeJS.ProcessEnv = process.env): IdleCollector {
  let collections = 0;
  if (env.HEARTH_IDLE_GC === 'off') return { collections, stop() {} };
  const heapUsed = o.heapUsed ?? (() => process.memoryUsage().heapUsed);
  const utilization = o.utilization ?? loopUtilization();
  const collect = o.collect ?? collectUntilCompact;
  const growth = o.growthBytes ?? 4 * 1048576;
  const idle = o.idleUtilization ?? 0.05;
  let mark = heapUsed();
  const handle = o.clock.setInterval(() => {
    const busy = utilization() >= idle;
    const used = heapUsed();
    if (used < mark) mark = used;
    if (busy || used - mark < growth) return;
    collect();
    collections++;
    mark = heapUsed();
    o.onCollect?.(used, mark);
  }, o.everyMs ?? 10_000);
  return {
    get collections() {
      return collections;
    },
    stop: () => o.clock.clearInterval(handle),
  };
}
