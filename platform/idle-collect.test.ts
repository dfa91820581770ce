/**
 * startIdleCollector: full collections once nothing heats, the loop is idle and the old generation has grown,
 * driven by a manual clock. The first tests inject the measures to check the decisions; the last runs the real
 * thing in a fresh process and checks the outcome (the heap V8 reports), with HEARTH_IDLE_GC=off as the control.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { ManualClock } from '../drivers/clock.js';
import { type IdleCollectorOptions, startIdleCollector } from './idle-collect.js';

const MB = 1048576;
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

function rig(heap: number, extra: Partial<IdleCollectorOptions> = {}) {
  const clock = new ManualClock(0);
  const state = { heap, utilization: 0, quiet: true, calls: 0, afterCall: () => {} };
  const c = startIdleCollector(
    {
      clock,
      everyMs: 1000,
      growthBytes: 4 * MB,
      quiet: () => state.quiet,
      oldUsed: () => state.heap,
      utilization: () => state.utilization,
      committed: () => 100 * MB, // never shrinks: two collections a round
      collectOnce: () => {
        state.calls++;
        state.heap -= 1.5 * MB; // what a collection frees
        state.afterCall();
      },
      ...extra,
    },
    {},
  );
  return { clock, state, c };
}

t.test('collects once grown, idle and quiet, then not again for the same garbage', async (t) => {
  const { clock, state, c } = rig(20 * MB);
  clock.advance(1000);
  await turns();
  t.equal(c.collections, 0, 'no growth: nothing');
  state.heap = 26 * MB;
  state.utilization = 0.4;
  clock.advance(1000);
  await turns();
  t.equal(c.collections, 0, 'grown but busy: nothing');
  state.utilization = 0.01;
  state.quiet = false;
  clock.advance(1000);
  await turns();
  t.equal(c.collections, 0, 'grown and idle, but something heats: nothing');
  t.equal(state.calls, 0);
  state.quiet = true;
  clock.advance(1000);
  await turns();
  t.equal(c.collections, 1, 'grown, idle and quiet: one round');
  t.equal(state.calls, 2, 'of two collections (the committed heap did not shrink)');
  clock.advance(5000);
  await turns();
  t.equal(c.collections, 1, 'the old generation after it is the new mark');
  state.heap = 26.5 * MB;
  clock.advance(1000);
  await turns();
  t.equal(c.collections, 1, 'growth below the threshold since then: nothing');
  c.stop();
  state.heap = 60 * MB;
  clock.advance(5000);
  await turns();
  t.equal(c.collections, 1, 'stopped');
});

t.test('heat that starts during a round ends it before the next collection', async (t) => {
  const { clock, state, c } = rig(30 * MB);
  state.heap = 40 * MB;
  state.afterCall = () => {
    state.quiet = false; // a cook started while the first collection ran
  };
  clock.advance(1000);
  await turns();
  t.equal(state.calls, 1, 'one collection, then quiet() was asked again');
  t.equal(c.collections, 1, 'a round of one');
});

t.test('a third collection while the committed heap still shrinks, never a fourth', async (t) => {
  let committed = 100 * MB;
  const { clock, state } = rig(30 * MB, { committed: () => committed });
  state.afterCall = () => {
    committed -= 10 * MB;
  };
  state.heap = 40 * MB;
  clock.advance(1000);
  await turns(10);
  t.equal(state.calls, 3);
});

t.test('an old generation V8 shrank by itself moves the mark down', async (t) => {
  const { clock, state, c } = rig(30 * MB);
  state.heap = 18 * MB;
  clock.advance(1000);
  await turns();
  state.heap = 23 * MB;
  clock.advance(1000);
  await turns();
  t.equal(c.collections, 1, '5 MB over the lower mark');
});

t.test('with the real loop measure, checks less than a real second apart are never idle', async (t) => {
  const clock = new ManualClock(0);
  let heap = 0;
  let calls = 0;
  const c = startIdleCollector({ clock, everyMs: 1000, quiet: () => true, oldUsed: () => heap, collectOnce: () => void calls++ }, {});
  for (let i = 0; i < 10; i++) {
    heap += 10 * MB;
    clock.advance(1000); // a fast clock: ten checks in far less than a second of real time
  }
  await turns();
  t.equal(calls, 0);
  t.equal(c.collections, 0);
  c.stop();
});

t.test('HEARTH_IDLE_GC=off never collects', async (t) => {
  const clock = new ManualClock(0);
  let heap = 0;
  const c = startIdleCollector(
    { clock, everyMs: 1000, quiet: () => true, oldUsed: () => heap, utilization: () => 0, collectOnce: () => t.fail() },
    { HEARTH_IDLE_GC: 'off' },
  );
  heap = 100 * MB;
  clock.advance(10_000);
  await turns();
  t.equal(c.collections, 0);
});

const PROBE = `
const { ManualClock } = await import(${JSON.stringify(new URL('../drivers/clock.ts', import.meta.url).href)});
const { startIdleCollector } = await import(${JSON.stringify(new URL('./idle-collect.ts', import.meta.url).href)});
const clock = new ManualClock(0);
const c = startIdleCollector({ clock, quiet: () => true });
// A burst: objects that stay reachable until it ends, then are garbage, as a spell of requests leaves them.
// A third of them stay (sessions, caches), scattered over every page the burst filled.
let burst = [];
for (let i = 0; i < 300000; i++) burst.push({ i, s: 'request ' + i, at: [i, i + 1] });
const stays = burst.filter((_, i) => i % 3 === 0);
burst = null;
const before = process.memoryUsage().heapUsed;
const totalBefore = process.memoryUsage().heapTotal;
// Quiet spells of more than a second of real time, the clock reaching the collector's check after each: the first
// may still see the burst's busy loop (and a starved machine may make any one look busy), so up to ten; the control
// waits as many as the collector needed. A round runs its collections one per turn of the loop.
const quiet = () => new Promise((resolve) => setTimeout(resolve, 1100));
let rounds = 0;
const most = Number(process.env.PROBE_ROUNDS ?? 10);
while (rounds < most && c.collections === 0) {
  await quiet();
  clock.advance(10000);
  rounds++;
}
await quiet();
const m = process.memoryUsage();
const old = (await import('node:v8')).getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
const oldSlack = old.space_size - old.space_used_size;
process.stdout.write(JSON.stringify({ before, after: m.heapUsed, totalBefore, totalAfter: m.heapTotal, oldSlack, collections: c.collections, rounds, stays: stays.length }));
c.stop();
`;

interface Probe {
  before: number;
  after: number;
  totalBefore: number;
  totalAfter: number;
  /** The old generation's committed size less what is in use, after. */
  oldSlack: number;
  collections: number;
  rounds: number;
}

async function probe(env: NodeJS.ProcessEnv): Promise<Probe> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], {
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as Probe;
}

t.test('in a real process, the garbage of a burst is gone after the quiet check', async (t) => {
  const on = await probe({ HEARTH_IDLE_GC: '' });
  const off = await probe({ HEARTH_IDLE_GC: 'off', PROBE_ROUNDS: String(on.rounds) });
  const freed = (p: Probe) => (p.before - p.after) / MB;
  t.equal(on.collections, 1);
  t.equal(off.collections, 0);
  t.ok(
    freed(on) > 10 && freed(on) > freed(off) + 10,
    `heap used ${(on.before / MB).toFixed(1)} → ${(on.after / MB).toFixed(1)} MB with the collector, ${(off.before / MB).toFixed(1)} → ${(off.after / MB).toFixed(1)} MB without`,
  );
  // The pages given back: the heap's committed size, what the process holds of it.
  const shrunk = (p: Probe) => (p.totalBefore - p.totalAfter) / MB;
  t.ok(
    shrunk(on) > 10 && shrunk(on) > shrunk(off) + 10,
    `heap committed ${(on.totalBefore / MB).toFixed(1)} → ${(on.totalAfter / MB).toFixed(1)} MB with the collector, ${(off.totalBefore / MB).toFixed(1)} → ${(off.totalAfter / MB).toFixed(1)} MB without`,
  );
  // Compacted: what stays is moved onto as few pages as it needs, the half-empty pages given back.
  t.ok(on.oldSlack < 5 * MB, `old generation committed − used after: ${(on.oldSlack / MB).toFixed(1)} MB`);
});
