/**
 * The process `npm run bench -- memory` watches: a hub with every feature (test-support/hub-app.ts, as the fuzz
 * harness starts it) and the hostile mix of `npm run fuzz` against it, in one process. Prints one JSON line per
 * phase on stdout: process.memoryUsage(), V8's heap spaces and /proc/self/smaps_rollup. Not a test.
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { keepYoungGenerationSmall } from '../platform/young-generation.js';

// As `hearth start` does (runtime/cli/commands/start.ts), before the hub's modules load (hence the dynamic
// import below); HEARTH_YOUNG_GENERATION=grow compares V8's default.
keepYoungGenerationSmall();
const { runFuzz } = await import('../test-support/fuzz.js');

const arg = (name: string, dflt: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt);
const MB = 1048576;

function phase(name: string): void {
  const m = process.memoryUsage();
  const smaps = readFileSync('/proc/self/smaps_rollup', 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(smaps)?.[1] ?? 0) / 1024;
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name.replace(/_space$/, ''), s.space_size / MB]));
  const line = {
    phase: name,
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
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

const afterMs = arg('after-ms', 30_000);
let started = false;
const r = await runFuzz({
  seed: arg('seed', 1),
  requests: arg('requests', 15_000),
  log: (l) => {
    if (!started && l === 'scope matrix') {
      started = true;
      phase('hub started');
    }
  },
  inspect: (_h, round) => phase(`after round ${round + 1}`),
  after: async () => {
    phase('hostile mix over');
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    phase(`${afterMs / 1000} s after`);
  },
});
const bad = r.failures.length + r.stops.filter((s) => !s.heatCut).length;
process.stdout.write(
  `${JSON.stringify({ done: true, requests: r.requests, failures: r.failures.length, stopsNotCut: bad - r.failures.length, stops: r.stops.length })}\n`,
);
process.exit(0);
