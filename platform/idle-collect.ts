/**
 * Full garbage collections once a burst of work is over and nothing heats: the hub's part of keeping memory
 * bounded after a hostile or merely busy spell (issue: a Pi-sized footprint).
 *
 * V8 collects its old generation when it grows, and its memory reducer runs a few more collections some seconds
 * after it last grew, once. A burst of requests that ends soon after the reducer ran leaves its garbage in the old
 * generation, resident, until the heap grows again, which an idle hub may not do for hours. Measured with
 * `npm run bench -- memory` (docs/performance.md): 30 s after the hostile mix the hub held 3–8 MB of heap that
 * forced collections freed. So every `everyMs` of the device's clock the collector looks at three things: whether
 * nothing heats (`quiet`: no heater on, no heat lease held), whether the event loop was idle over the last period
 * (its utilization below `idleUtilization`), and whether the old generation has grown by `growthBytes` since the
 * last full collection it saw. When all three hold it collects (two or three full collections, below) and takes
 * the old generation after it as the new mark. An old generation that shrank by itself (V8 collected) moves the
 * mark down, so there is no second round for the same garbage.
 *
 * Each collection blocks the loop (30–90 ms here, more on a Pi), so it never runs while heat is on, whatever the
 * loop's utilization: a cook's control loop is light, and the heat guard's lease (600 ms, renewed from this loop)
 * and the loop watchdog (700 ms) must never wait on memory housekeeping. The collections of one round are run one
 * per turn of the event loop, and `quiet` is asked again before each. It does not touch compiled code: V8 drops
 * code only in its own collections.
 */
import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { compactGarbageNow } from './young-generation.js';

/** The timers of the device clock (drivers/types.ts' Clock has them; platform/ does not import drivers/). */
export interface IntervalClock {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface IdleCollectorOptions {
  clock: IntervalClock;
  /** True when nothing heats (no heater on, no lease): the only time a collection may run. */
  quiet: () => boolean;
  /** How often to look, in the clock's ms (default 10 s). */
  everyMs?: number;
  /** Old-generation growth since the last full collection that makes another worth its pause (default 4 MiB). */
  growthBytes?: number;
  /** The event loop counts as idle below this utilization over the last period (default 0.05). */
  idleUtilization?: number;
  /**
   * What is measured and done, injectable for tests (default: the old generation's size in use, the loop's
   * utilization, the heap's committed size, one full collection).
   */
  oldUsed?: () => number;
  utilization?: () => number;
  committed?: () => number;
  collectOnce?: () => void;
  /** Told of each round: the old generation in use before and after, bytes, and the collections it ran. */
  onCollect?: (before: number, after: number, collections: number) => void;
}

export interface IdleCollector {
  /** Rounds of collections run so far. */
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
 * The old generation's bytes in use (old, code and large-object spaces): what garbage that outlived the young
 * generation occupies. Short-lived garbage in the young generation is V8's scavenger's business, and counting it
 * would let a large young generation (`HEARTH_YOUNG_GENERATION=grow`) start rounds for nothing.
 */
function oldGenerationUsed(): number {
  let used = 0;
  for (const s of getHeapSpaceStatistics())
    if (s.space_name !== 'new_space' && s.space_name !== 'new_large_object_space') used += s.space_used_size;
  return used;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Start the collector. `HEARTH_IDLE_GC=off` in `env` returns one that never collects (to compare, or for a
 * deployment that prefers V8's own timing).
 */
export function startIdleCollector(o: IdleCollectorOptions, env: NodeJS.ProcessEnv = process.env): IdleCollector {
  let rounds = 0;
  if (env.HEARTH_IDLE_GC === 'off') return { collections: rounds, stop() {} };
  const oldUsed = o.oldUsed ?? oldGenerationUsed;
  const utilization = o.utilization ?? loopUtilization();
  const committed = o.committed ?? (() => process.memoryUsage().heapTotal);
  const collectOnce = o.collectOnce ?? compactGarbageNow;
  const growth = o.growthBytes ?? 4 * 1048576;
  const idle = o.idleUtilization ?? 0.05;
  let mark = oldUsed();
  let running = false;
  let stopped = false;

  /**
   * Two full collections, and a third while the heap's committed size still shrinks, one per turn of the loop,
   * each compacting the whole old generation (compactGarbageNow). A plain collection frees the burst's objects but
   * leaves the pages they were on half empty, and compacts only the pages V8 finds most fragmented: in a fresh
   * process after 600,000 objects became garbage, heap committed 118.8 MB, 95.1 after one plain collection, 56.1
   * after two; in the hub 30 s after the mix (`npm run bench -- memory`) one left 54.1 MB committed, two more 47.6,
   * and still 4–7 MB above what was in use. Compacting gives those pages back (docs/performance.md).
   */
  const round = async (before: number): Promise<void> => {
    let ran = 0;
    let shrank = true;
    for (let i = 0; i < 3 && shrank; i++) {
      if (stopped || !o.quiet()) break;
      const c = committed();
      collectOnce();
      ran++;
      if (i >= 1) shrank = c - committed() >= 1048576;
      await nextTurn();
    }
    if (ran === 0) return;
    rounds++;
    mark = oldUsed();
    o.onCollect?.(before, mark, ran);
  };

  const handle = o.clock.setInterval(() => {
    const busy = utilization() >= idle;
    const used = oldUsed();
    if (used < mark) mark = used;
    if (running || busy || used - mark < growth || !o.quiet()) return;
    running = true;
    // Nothing in a round throws but a collection's own failure; the next check tries again.
    void round(used)
      .catch(() => {})
      .finally(() => {
        running = false;
      });
  }, o.everyMs ?? 10_000);
  return {
    get collections() {
      return rounds;
    },
    stop: () => {
      stopped = true;
      o.clock.clearInterval(handle);
    },
  };
}
