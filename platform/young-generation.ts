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
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let applied = false;

/** Stop the young generation from growing from now on (once per process; a no-op when opted out). */
export function keepYoungGenerationSmall(env: NodeJS.ProcessEnv = process.env): boolean {
  if (applied) return true;
  if (env.HEARTH_YOUNG_GENERATION === 'grow') return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  applied = true;
  return true;
}

let gcFn: ((options?: { type: string; execution: string; flavor?: string }) => void) | undefined;

/**
 * A full garbage collection now, once a start-up's heavy lifting is done (a catalog loaded): what the load
 * parsed and dropped would otherwise sit in the old generation, resident, until the heap next fills up, which an
 * idle server may not do for hours. V8 offers `gc` only behind `--expose-gc`; the flag is set for the moment it
 * takes to take the function from a fresh context (as Node's own tests do) and cleared again, so no later context
 * sees a `gc` and V8's flag hash is the one a fresh process has (Node 24's V8 refuses a code cache recorded under
 * other flags: scripts/build-bundle.mjs records it from a start that ends here). Costs one major GC (milliseconds).
 *
 * `reduceMemory`: then also the collection V8 runs when memory is low (the `last-resort` flavour of its gc
 * extension: several full collections, then the young generation shrunk back to its starting size and the freed pages
 * given back). `hearth start` asks for it once before its ready line: measured on Node 24 (`npm run bench --
 * start`), resident 103 → 98 MB; Node 20's V8 does not shrink its young generation this way.
 */
export function collectGarbageNow(opts: { reduceMemory?: boolean } = {}): void {
  if (gcFn === undefined) {
    setFlagsFromString('--expose-gc');
    try {
      gcFn = runInNewContext('gc') as typeof gcFn;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  gcFn?.();
  // Node 20's V8 takes the options but its collection with them leaves garbage the plain one frees (a weakly held
  // object stays): the plain one first, then the memory-reducing one.
  if (opts.reduceMemory) gcFn?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
