/**
 * releaseFreedPages: on V8 12 and later (the suite's Node 24 run) the pages that collections freed stop being
 * resident, where a compacting collection leaves them so; on older V8 (Node 20) it does nothing and says so,
 * because any full collection releases them there. Checked on the process's resident memory itself, in a fresh
 * process: 400,000 small objects made, nine tenths then dropped, a compacting collection, then the call.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { releaseFreedPages } from './young-generation.js';

const PROBE = `
import { readFileSync } from 'node:fs';
const { compactGarbageNow, keepYoungGenerationSmall, releaseFreedPages } = await import(${JSON.stringify(new URL('./young-generation.ts', import.meta.url).href)});
keepYoungGenerationSmall({});
const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const settle = () => new Promise((r) => setTimeout(r, 500));
let all = [];
for (let i = 0; i < 400000; i++) all.push({ i, s: 'x' + i, a: [i, i + 1, i + 2] });
const kept = all.filter((_, i) => i % 10 === 0);
all = null;
compactGarbageNow();
await settle();
const compacted = rss();
const released = process.env.PROBE_RELEASE === '1' ? releaseFreedPages() : false;
// V8 unmaps released pages on a thread of its own: the lowest reading over a few seconds, not the first one.
let after = rss();
for (let i = 0; i < 10 && compacted - after < 20; i++) {
  await settle();
  after = Math.min(after, rss());
}
process.stdout.write(JSON.stringify({ compacted, after, released, kept: kept.length }));
`;

async function probe(release: boolean): Promise<{ compacted: number; after: number; released: boolean }> {
  // V8's own memory reducer (a timer some seconds after a full collection) would release the pages by itself.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--no-memory-reducer', '--import', 'tsx', '--input-type=module', '-e', PROBE],
    {
      env: { ...process.env, PROBE_RELEASE: release ? '1' : '0' },
    },
  );
  return JSON.parse(stdout) as { compacted: number; after: number; released: boolean };
}

const modern = Number(process.versions.v8.split('.')[0]) >= 12;

t.test('V8 11 (Node 20): nothing to do, and it says so', { skip: modern ? 'V8 12 or later here' : false }, async (t) => {
  t.equal(releaseFreedPages(), false);
});

t.test('V8 12 and later: the freed pages stop being resident', { skip: modern ? false : 'V8 older than 12 here' }, async (t) => {
  const kept = await probe(false);
  const given = await probe(true);
  t.equal(given.released, true);
  t.ok(
    kept.compacted - kept.after < 20,
    `without it: ${kept.compacted.toFixed(1)} -> ${kept.after.toFixed(1)} MB resident (the pages stay)`,
  );
  t.ok(given.compacted - given.after >= 20, `with it: ${given.compacted.toFixed(1)} -> ${given.after.toFixed(1)} MB resident`);
});

const FLUSH_PROBE = `
const { collectGarbageNow, flushIdleCode, releaseFreedPages } = await import(${JSON.stringify(new URL('./young-generation.ts', import.meta.url).href)});
flushIdleCode({});
const fns = [];
for (let i = 0; i < 300; i++) fns.push(new Function('x', 'return x + ' + i + ';'));
for (const f of fns) f(1);
collectGarbageNow();
for (const f of fns) f(1);
console.log('--- release');
releaseFreedPages();
console.log('--- released');
// Flushing on again: V8's own memory-reducing collection, called directly, now drops idle code.
const { setFlagsFromString } = await import('node:v8');
const { runInNewContext } = await import('node:vm');
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
setFlagsFromString('--no-expose-gc');
gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
console.log('--- after');
`;

t.test(
  'V8 12 and later: the code that just ran keeps its compiled code (no flushing during it)',
  { skip: modern ? false : 'V8 older than 12 here' },
  async (t) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--trace-flush-code', '--import', 'tsx', '--input-type=module', '-e', FLUSH_PROBE],
      { maxBuffer: 16 * 1048576 },
    );
    const during = stdout.slice(stdout.indexOf('--- release'), stdout.indexOf('--- released'));
    const flushed = [...during.matchAll(/(\d+) flushed SharedFunctionInfo/g)].reduce((n, m) => n + Number(m[1]), 0);
    t.ok(during.includes('flushed SharedFunctionInfo'), 'V8 reported on its collections');
    t.equal(flushed, 0, 'no function lost its code (2,759 did with flushing left on)');
    const after = stdout.slice(stdout.indexOf('--- released'), stdout.indexOf('--- after'));
    const later = [...after.matchAll(/(\d+) flushed SharedFunctionInfo/g)].reduce((n, m) => n + Number(m[1]), 0);
    t.ok(later > 0, `flushing is on again afterwards (${later} flushed by a memory-reducing collection then)`);
  },
);
