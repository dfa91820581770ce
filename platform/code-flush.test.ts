/**
 * flushIdleCode: V8 drops the compiled code of functions that stopped running after one full collection it did not run through. Each
 * probe runs in a fresh process that sets the flags first, as `hearth start` does, compiles and runs 3,000
 * functions once, starts a worker thread (as the hub's loop watchdog does), then allocates until V8 has run three
 * full collections of its own; the same probe with the setting opted out (HEARTH_CODE_FLUSH=keep, V8's default of
 * five) is the control.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';

const PROBE = `
import { getHeapCodeStatistics } from 'node:v8';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Script } from 'node:vm';
const { flushIdleCode } = await import(${JSON.stringify(new URL('./young-generation.ts', import.meta.url).href)});
const applied = flushIdleCode();
const source = Array.from({ length: 3000 }, (_, i) => 'function f' + i + '(a) { let s = 0; for (let j = 0; j < a; j++) s += j * ' + i + '; return s; }').join('\\n')
  + '\\n[' + Array.from({ length: 3000 }, (_, i) => 'f' + i).join(',') + ']';
const fns = new Script(source).runInThisContext();
for (const f of fns) f(3);
const w = new Worker('setInterval(() => {}, 1000)', { eval: true, execArgv: [] });
await new Promise((resolve) => w.once('online', resolve));
const bytecode = () => getHeapCodeStatistics().bytecode_and_metadata_size / 1048576;
const before = bytecode();
let majors = 0;
const obs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
});
obs.observe({ entryTypes: ['gc'] });
let keep = [];
while (majors < 3) {
  for (let i = 0; i < 100000; i++) keep.push({ i, s: 'x' + i });
  if (keep.length > 1000000) keep = [];
  await new Promise((resolve) => setImmediate(resolve));
}
obs.disconnect();
await w.terminate();
process.stdout.write(JSON.stringify({ applied, before, after: bytecode(), majors, fns: fns.length }));
`;

async function probe(env: NodeJS.ProcessEnv) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], {
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as { applied: boolean; before: number; after: number; majors: number };
}

// Under `npm run test:coverage` every process tap spawns collects coverage, and V8 keeps all code while it does.
const coverage = process.env._TAPJS_PROCESSINFO_COVERAGE_ === '1';

t.test(
  'the code of functions that stopped running is dropped at the next full collections',
  { skip: coverage && 'V8 flushes no code while it collects coverage' },
  async (t) => {
    const on = await probe({ HEARTH_CODE_FLUSH: '' });
    const off = await probe({ HEARTH_CODE_FLUSH: 'keep' });
    t.ok(on.applied, 'flushIdleCode set the flags');
    t.notOk(off.applied, 'HEARTH_CODE_FLUSH=keep leaves V8 as it is');
    const dropped = (p: { before: number; after: number }) => p.before - p.after;
    t.ok(
      dropped(on) > 0.3 && dropped(on) > 2 * dropped(off),
      `bytecode ${on.before.toFixed(2)} → ${on.after.toFixed(2)} MB with the setting, ${off.before.toFixed(2)} → ${off.after.toFixed(2)} MB without (${on.majors} full collections each)`,
    );
  },
);

t.test('flushing is the default; HEARTH_CODE_FLUSH=keep turns it off, idle on whatever the default', async (t) => {
  const { flushIdleCode } = await import('./young-generation.js');
  t.equal(flushIdleCode({}), true, 'without the variable: on (hearth start, recipe-api serve)');
  t.equal(flushIdleCode({}, false), false, 'a caller whose default is off: off');
  t.equal(flushIdleCode({ HEARTH_CODE_FLUSH: 'keep' }), false, 'keep: never');
  t.equal(flushIdleCode({ HEARTH_CODE_FLUSH: 'idle' }, false), true, 'idle: on, whatever the default');
});
