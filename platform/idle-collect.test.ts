/**
 * startIdleCollector: one full collection once the loop is idle and the heap has grown, driven by a manual clock.
 * The first tests inject the measures to check the decisions; the last runs the real thing in a fresh process and
 * checks the outcome (the heap V8 reports), with HEARTH_IDLE_GC=off as the control.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { ManualClock } from '../drivers/clock.js';
import { startIdleCollector } from './idle-collect.js';

const MB = 1048576;

function rig(heap: number) {
  const clock = new ManualClock(0);
  const state = { heap, utilization: 0, collected: [] as number[] };
  const c = startIdleCollector(
    {
      clock,
      everyMs: 1000,
      growthBytes: 4 * MB,
      heapUsed: () => state.heap,
      utilization: () => state.utilization,
      collect: () => {
        state.collected.push(state.heap);
        state.heap -= 3 * MB; // what a collection frees
      },
    },
    {},
  );
  return { clock, state, c };
}

t.test('collects once the heap grew and the loop is idle, then not again for the same garbage', async (t) => {
  const { clock, state, c } = rig(20 * MB);
  clock.advance(1000);
  t.equal(c.collections, 0, 'no growth: nothing');
  state.heap = 26 * MB;
  state.utilization = 0.4;
  clock.advance(1000);
  t.equal(c.collections, 0, 'grown but busy: nothing');
  state.utilization = 0.01;
  clock.advance(1000);
  t.equal(c.collections, 1, 'grown and idle: one collection');
  t.same(state.collected, [26 * MB]);
  clock.advance(5000);
  t.equal(c.collections, 1, 'the heap after it is the new mark');
  state.heap = 26.5 * MB;
  clock.advance(1000);
  t.equal(c.collections, 1, 'growth below the threshold since then: nothing');
  c.stop();
  state.heap = 60 * MB;
  clock.advance(5000);
  t.equal(c.collections, 1, 'stopped');
});

t.test('a heap V8 shrank by itself moves the mark down', async (t) => {
  const { clock, state, c } = rig(30 * MB);
  state.heap = 18 * MB;
  clock.advance(1000);
  state.heap = 23 * MB;
  clock.advance(1000);
  t.equal(c.collections, 1, '5 MB over the lower mark');
});

t.test('HEARTH_IDLE_GC=off never collects', async (t) => {
  const clock = new ManualClock(0);
  let heap = 0;
  const c = startIdleCollector(
    { clock, everyMs: 1000, heapUsed: () => heap, utilization: () => 0, collect: () => t.fail() },
    { HEARTH_IDLE_GC: 'off' },
  );
  heap = 100 * MB;
  clock.advance(10_000);
  t.equal(c.collections, 0);
});

const PROBE = `
const { ManualClock } = await import(${JSON.stringify(new URL('../drivers/clock.ts', import.meta.url).href)});
const { startIdleCollector } = await import(${JSON.stringify(new URL('./idle-collect.ts', import.meta.url).href)});
const clock = new ManualClock(0);
const c = startIdleCollector({ clock });
// A burst: objects that stay reachable until it ends, then are garbage, as a spell of requests leaves them.
let burst = [];
for (let i = 0; i < 300000; i++) burst.push({ i, s: 'request ' + i, at: [i, i + 1] });
burst = null;
const before = process.memoryUsage().heapUsed;
const totalBefore = process.memoryUsage().heapTotal;
// Quiet spells of more than a second of real time, the clock reaching the collector's check after each: the first
// may still see the burst's busy loop (and a starved machine may make any one look busy), so up to ten; the control
// waits as many as the collector needed.
const quiet = () => new Promise((resolve) => setTimeout(resolve, 1100));
let rounds = 0;
const most = Number(process.env.PROBE_ROUNDS ?? 10);
while (rounds < most && c.collections === 0) {
  await quiet();
  clock.advance(10000);
  rounds++;
}
const m = process.memoryUsage();
process.stdout.write(JSON.stringify({ before, after: m.heapUsed, totalBefore, totalAfter: m.heapTotal, collections: c.collections, rounds }));
c.stop();
`;

async function probe(env: NodeJS.ProcessEnv) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], {
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as {
    before: number;
    after: number;
    totalBefore: number;
    totalAfter: number;
    collections: number;
    rounds: number;
  };
}

t.test('in a real process, the garbage of a burst is gone after the quiet check', async (t) => {
  const on = await probe({ HEARTH_IDLE_GC: '' });
  const off = await probe({ HEARTH_IDLE_GC: 'off', PROBE_ROUNDS: String(on.rounds) });
  const freed = (p: { before: number; after: number }) => (p.before - p.after) / MB;
  t.equal(on.collections, 1);
  t.equal(off.collections, 0);
  t.ok(
    freed(on) > 10 && freed(on) > freed(off) + 10,
    `heap used ${(on.before / MB).toFixed(1)} → ${(on.after / MB).toFixed(1)} MB with the collector, ${(off.before / MB).toFixed(1)} → ${(off.after / MB).toFixed(1)} MB without`,
  );
  // The pages given back: the heap's committed size, what the process holds of it.
  const shrunk = (p: { totalBefore: number; totalAfter: number }) => (p.totalBefore - p.totalAfter) / MB;
  t.ok(
    shrunk(on) > 10 && shrunk(on) > shrunk(off) + 10,
    `heap committed ${(on.totalBefore / MB).toFixed(1)} → ${(on.totalAfter / MB).toFixed(1)} MB with the collector, ${(off.totalBefore / MB).toFixed(1)} → ${(off.totalAfter / MB).toFixed(1)} MB without`,
  );
});
