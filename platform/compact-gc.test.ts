/**
 * compactGarbageNow: a full collection that compacts the whole old generation and gives its emptied pages back,
 * where a plain one (collectGarbageNow) leaves a fragmented old generation committed. Each probe runs in a fresh
 * process: 600,000 objects, two thirds of them then garbage, scattered over every page, then two collections.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';

const MB = 1048576;
const PROBE = `
import { getHeapSpaceStatistics } from 'node:v8';
const { collectGarbageNow, compactGarbageNow } = await import(${JSON.stringify(new URL('./young-generation.ts', import.meta.url).href)});
const collect = process.env.PROBE_KIND === 'compact' ? compactGarbageNow : collectGarbageNow;
let all = [];
for (let i = 0; i < 600000; i++) all.push({ i, s: 'object ' + i, at: [i] });
collectGarbageNow();
collectGarbageNow();
const kept = all.filter((_, i) => i % 3 === 0);
all = null;
for (let k = 0; k < 2; k++) {
  collect();
  await new Promise((resolve) => setImmediate(resolve));
}
const old = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
process.stdout.write(JSON.stringify({ committed: old.space_size, used: old.space_used_size, kept: kept.length }));
`;

async function probe(kind: string): Promise<{ committed: number; used: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], {
    env: { ...process.env, PROBE_KIND: kind },
  });
  return JSON.parse(stdout) as { committed: number; used: number };
}

t.test('compacting collections give back the pages a plain collection leaves half empty', async (t) => {
  const plain = await probe('plain');
  const compact = await probe('compact');
  const slack = (p: { committed: number; used: number }) => (p.committed - p.used) / MB;
  t.ok(
    slack(compact) < 5 && slack(compact) < slack(plain) / 2,
    `old generation committed − used: ${slack(compact).toFixed(1)} MB compacting, ${slack(plain).toFixed(1)} MB plain (used ${(compact.used / MB).toFixed(1)} / ${(plain.used / MB).toFixed(1)} MB)`,
  );
});
