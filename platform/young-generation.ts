/**
 * Keep V8's young generation at its starting size in a long-running server.
 *
 * V8 doubles the young generation (up to 2 × 16 MB semi-spaces on 64-bit) whenever a scavenge finds much of it
 * alive, as a start-up that builds its in-memory structures does, and never gives those pages back while the
 * process is idle. Measured (docs/performance.md, docs/recipe-api.md): the recipe API over 2,000 recipes held
 * 32 MB of young generation after its load and 140 MB resident; with the growth factor at 1 the young
 * generation stayed at 4 MB and the process at 121 MB, for the same CPU. `--max-semi-space-size` does the same
 * but only on the command line (a running process cannot change its heap sizes); the growth factor is read at
 * each growth, so setting it here, before the heavy work, takes effect. `HEARTH_YOUNG_GENERATION=grow` leaves
 * V8's default (to compare, or when a deployment trades memory for fewer scavenges).
 */
import { subscribe } from 'node:diagnostics_channel';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Worker } from 'node:worker_threads';

/** V8 flags set at run time so far; set again whenever a worker thread is created (see below). */
const applied = new Set<string>();

/**
 * Set V8 flags for the rest of the process. Creating a worker thread puts V8's flags back to the command line's
 * (measured on Node 20: after the supervisor's watchdog worker started, the young generation grew to 32 MB
 * again), so every flag set here is set again whenever one is created.
 */
function keepFlags(flags: readonly string[]): void {
  const first = applied.size === 0;
  for (const f of flags) {
    applied.add(f);
    setFlagsFromString(f);
  }
  if (!first) return;
  const again = () => {
    for (const f of applied) setFlagsFromString(f);
  };
  // Published by the Worker constructor; the new thread may still be setting up, so again once it is online.
  subscribe('worker_threads', (message) => {
    again();
    (message as { worker?: Worker }).worker?.once('online', again);
  });
}

const YOUNG = '--semi-space-growth-factor=1';

/** Stop the young generation from growing from now on (once per process; a no-op when opted out). */
export function keepYoungGenerationSmall(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.HEARTH_YOUNG_GENERATION === 'grow') return false;
  if (!applied.has(YOUNG)) keepFlags([YOUNG]);
  return true;
}

/**
 * Give back the compiled code of functions that stopped running. V8 drops a function's bytecode once it has not
 * run through `--bytecode-old-age` full collections (5 by default) and never drops its baseline (Sparkplug) code
 * unless `--flush-baseline-code`; a library a surface loads on first use (the MCP SDK, GraphQL, A2A, jose) keeps
 * its code in the heap long after the last request. Measured side by side (`npm run bench -- memory
 * --requests=6000`, docs/performance.md), RSS 30 s after the hostile mix minus before: +32.2 and +38.2 MB with
 * V8's default, +35.8 with an old age of 2, +22.1 and +25.2 with 1 (code space 6.3 → 2.0–2.5 MB). A function
 * that runs between two full collections keeps its code; one dropped is compiled again from its source on its
 * next call (~90 µs a function here). The hub's stop path runs only when someone stops, so a stop after a quiet
 * spell compiles part of it again: `npm run bench -- estop`, both settings side by side (docs/performance.md), a
 * stop during a cook answered in 8.4–11.0 ms median flushed against 6.3–10.0 kept (worst 14.2 and 10.9), one
 * after 40 s quiet with nothing heating (no heat to cut) in 11.7–15.5 against 4.4–4.9 (worst 19.2 and 5.1).
 * Both `hearth start` and the recipe API do it by default.
 * `HEARTH_CODE_FLUSH=keep` turns it off, `idle` on, whatever the caller's default.
 */
export const FLUSH_FLAGS = ['--flush-baseline-code', '--bytecode-old-age=1'] as const;

export function flushIdleCode(env: NodeJS.ProcessEnv = process.env, byDefault = true): boolean {
  if (env.HEARTH_CODE_FLUSH === 'keep' || (!byDefault && env.HEARTH_CODE_FLUSH !== 'idle')) return false;
  if (!FLUSH_FLAGS.every((f) => applied.has(f))) keepFlags(FLUSH_FLAGS);
  return true;
}

/**
 * The V8 flags this process set at run time, to set again in a worker thread as it starts. The subscription above
 * sets them back only once the new worker is online, an event the creating thread hears only when its event loop
 * runs: a thread that creates workers and then works synchronously (the recipe API's catalog load) would run
 * without them meanwhile, so the worker sets them itself (V8's flags are the process's).
 */
export function keptFlags(): string[] {
  return [...applied];
}

type GcFunction = (options?: { type: string; execution: string; flavor?: string }) => void;
let gcFn: GcFunction | undefined;

/** `gc` from a fresh context: `--expose-gc` is set only while the context is made, then cleared again. */
function gcFunction(): GcFunction {
  if (gcFn === undefined) {
    setFlagsFromString('--expose-gc');
    try {
      gcFn = runInNewContext('gc') as GcFunction;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  return gcFn;
}

/**
 * A full garbage collection now, once a start-up's heavy lifting is done (a catalog loaded): what the load
 * parsed and dropped would otherwise sit in the old generation, resident, until the heap next fills up, which an
 * idle server may not do for hours. V8 offers `gc` only behind `--expose-gc`; the flag is set for the moment it
 * takes to take the function from a fresh context (as Node's own tests do) and cleared again, so no later context
 * sees a `gc` and V8's flag hash is the one a fresh process has (Node 24's V8 refuses a code cache recorded under
 * other flags: scripts/build-bundle.mjs records it from a start). Costs one major GC (milliseconds).
 */
export function collectGarbageNow(): void {
  gcFunction()();
}

/**
 * The V8 and Node flags this process was given, on its command line and in NODE_OPTIONS, as one string with `_` in
 * flag names written `-` (V8 takes either: `--no_turbofan` is `--no-turbofan`), for asking whether the operator
 * already set a flag the code would otherwise set or clear at run time.
 */
export function commandLineFlags(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): string {
  return `${execArgv.join(' ')} ${env.NODE_OPTIONS ?? ''}`.replaceAll('_', '-');
}

/**
 * A full collection that moves every live object of the old generation onto as few pages as it needs and gives
 * back the rest (`--compact-on-every-full-gc` for this collection only, cleared again before it returns, so V8's
 * flags are a fresh process's again). A plain one compacts only the pages V8 finds most fragmented: in a fresh
 * process with 27 MB live among 77 MB of old generation, two plain collections left 65.7–77.2 MB committed, two
 * compacting ones 28.0, for pauses of 58–82 ms against 38–53. What V8's memory reducer does once a process is idle;
 * the hub's idle collector (platform/idle-collect.ts) uses it.
 */
export function compactGarbageNow(): void {
  // Set on the command line (or NODE_OPTIONS) already: every full collection compacts; leave the flag as it is.
  if (commandLineFlags().includes('--compact-on-every-full-gc')) {
    gcFunction()();
    return;
  }
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    gcFunction()();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

/**
 * Give back the pages of the heap that collections freed, on V8 12 and later (Node 22, 24), where V8 keeps freed
 * pages in a pool, still resident, until a memory-reducing collection (the `last-resort` flavour of its gc
 * extension) releases them. Measured on Node 24.22: platform/release-pages.test.ts's probe (400,000 small objects
 * made, nine tenths dropped, a compacting collection) stays at ~140 MB resident without it and drops to ~73 MB
 * with it; the recipe API over 2,000 recipes, side by side, 123 -> 99 MB once quiet (docs/recipe-api.md). Node
 * 20's V8 11.3 releases them after any full collection, so it does nothing there and says false. Several full
 * collections in a row: run it only when nothing waits (the recipe API, once its server is quiet).
 */
export function releaseFreedPages(v8 = process.versions.v8): boolean {
  if (Number(v8.split('.')[0]) < 12) return false;
  // Its collections run back to back with no JavaScript between them: with code flushing on (flushIdleCode) they
  // would drop the compiled code of everything, the request path included (measured: 300 warm functions 0.13-0.25
  // ms again after a plain collection, 4.1-4.5 ms after this one). So no flushing during it, as before after it.
  const asked = commandLineFlags();
  setFlagsFromString('--no-flush-bytecode');
  setFlagsFromString('--no-flush-baseline-code');
  try {
    gcFunction()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } finally {
    setFlagsFromString(asked.includes('--no-flush-bytecode') ? '--no-flush-bytecode' : '--flush-bytecode');
    const baseline = applied.has('--flush-baseline-code') || /(^|\s)--flush-baseline-code\b/.test(asked);
    setFlagsFromString(baseline ? '--flush-baseline-code' : '--no-flush-baseline-code');
  }
  return true;
}

/**
 * The collection V8 runs when memory is low (the `last-resort` flavour of its gc extension: full collections until
 * nothing more is freed, then the young generation shrunk back to its starting size and the freed pages given
 * back), once, when asked for with `HEARTH_YOUNG_GENERATION=shrink`; false, doing nothing, otherwise and on a V8
 * older than 12 (Node 20's 11.3 takes the option but neither shrinks the young generation nor frees more:
 * measured, no change). `hearth start` calls it before its ready line. Measured on Node 24 side by side
 * (docs/performance.md): resident 103.0 → 97.6 MB, first 200 456 → 528 ms (~80 ms of CPU): opt-in, because
 * Node 24's first answer is already at the 2× of the floor the start must stay within.
 */
export function reduceMemoryNow(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.HEARTH_YOUNG_GENERATION !== 'shrink' || Number(process.versions.v8.split('.')[0]) < 12) return false;
  gcFunction()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return true;
}
