/**
 * The hub process of `npm run bench -- memory`: a hub with every feature (test-support/hub-app.ts, as the fuzz
 * harness builds it) on a data directory of its own (SQLite in a file, as `hearth start` keeps it), young generation
 * kept small before the hub's modules load as `hearth start` does, and nothing of the client. bench/memory-child.ts
 * starts it with an IPC channel and sends the hostile mix from its own process; this one answers the harness
 * (test-support/fuzz-target.ts), `{ reading: name, gc? }` with its memory (process.memoryUsage(), V8's heap spaces,
 * /proc/self/smaps_rollup) and `{ snapshot: path }` with a heap snapshot written there. Not a test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { flushIdleCode, keepYoungGenerationSmall } from '../platform/young-generation.js';

keepYoungGenerationSmall();
flushIdleCode(process.env); // as hearth start does (HEARTH_CODE_FLUSH=keep opts out)
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const { fuzzHub, serveTarget } = await import('../test-support/fuzz-target.js');

const MB = 1048576;

export interface Reading {
  phase: string;
  rss: number;
  anon: number;
  pss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  newSpace: number;
  oldSpace: number;
  largeObjects: number;
  code: number;
  /** Collections the hub's idle collector has run so far. */
  idleGcs: number;
}

function reading(phase: string, idleGcs: number): Reading {
  const m = process.memoryUsage();
  const smaps = readFileSync('/proc/self/smaps_rollup', 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(smaps)?.[1] ?? 0) / 1024;
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name.replace(/_space$/, ''), s.space_size / MB]));
  return {
    phase,
    rss: m.rss / MB,
    anon: kb('Anonymous'),
    pss: kb('Pss'),
    heapTotal: m.heapTotal / MB,
    heapUsed: m.heapUsed / MB,
    external: m.external / MB,
    arrayBuffers: m.arrayBuffers / MB,
    newSpace: spaces.new ?? 0,
    oldSpace: spaces.old ?? 0,
    largeObjects: spaces.large_object ?? 0,
    code: spaces.code ?? 0,
    idleGcs,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'hearth-memory-'));
const h = await fuzzHub(dir);
serveTarget(h, (msg) => {
  const m = msg as { reading?: string; gc?: boolean; snapshot?: string; follow?: number };
  if (m.follow !== undefined) {
    // The wait after the mix: the hub's clock runs with the wall clock for `follow` ms, as a device's does, so
    // what the supervisor does on its own clock while idle (stopping the loop watchdog's thread once the heat
    // has been off for a while) happens here too. During the mix the harness drives the clock itself.
    const step = 250;
    const until = Date.now() + m.follow;
    const tick = setInterval(() => {
      if (Date.now() >= until) clearInterval(tick);
      void h.clock.advanceAsync(step);
    }, step);
  } else if (m.reading !== undefined) {
    if (m.gc) {
      gc();
      gc();
    }
    process.send?.({ reading: reading(m.reading, h.app.idleCollections) });
  } else if (m.snapshot !== undefined) {
    process.send?.({ snapshot: v8.writeHeapSnapshot(m.snapshot) });
  }
});
process.on('disconnect', () => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
