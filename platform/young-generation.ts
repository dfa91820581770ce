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

let applied = false;
const FLAG = '--semi-space-growth-factor=1';

/**
 * Stop the young generation from growing from now on (once per process; a no-op when opted out). Creating a
 * worker thread puts V8's flags back to the command line's (measured on Node 20: after the supervisor's watchdog
 * worker started, the young generation grew to 32 MB again), so the flag is set again whenever one is created.
 */
export function keepYoungGenerationSmall(env: NodeJS.ProcessEnv = process.env): boolean {
  if (applied) return true;
  if (env.HEARTH_YOUNG_GENERATION === 'grow') return false;
  setFlagsFromString(FLAG);
  // Published by the Worker constructor; the new thread may still be setting up, so again once it is online.
  subscribe('worker_threads', (message) => {
    setFlagsFromString(FLAG);
    (message as { worker?: Worker }).worker?.once('online', () => setFlagsFromString(FLAG));
  });
  applied = true;
  return true;
}

let gcFn: (() => void) | undefined;

/**
 * A full garbage collection now, once a start-up's heavy lifting is done (a catalog loaded): what the load
 * parsed and dropped would otherwise sit in the old generation, resident, until the heap next fills up, which an
 * idle server may not do for hours. V8 offers `gc` only behind `--expose-gc`; the flag is set for the process
 * and the function taken from a fresh context, as Node's own tests do. Costs one major GC (milliseconds).
 */
export function collectGarbageNow(): void {
  if (gcFn === undefined) {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  }
  gcFn();
}
