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
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], {
    env: { ...process.env, PROBE_RELEASE: release ? '1' : '0' },
  });
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
