/**
 * The young generation stays small after a worker thread starts: creating a worker puts V8's flags back to the
 * command line's, and the supervisor's watchdog worker undid the setting in every hub. Run in a fresh process,
 * which sets the flag before loading anything else, as `hearth start` does.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';

const PROBE = `
import { getHeapSpaceStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
const { keepYoungGenerationSmall } = await import(${JSON.stringify(new URL('./young-generation.ts', import.meta.url).href)});
keepYoungGenerationSmall({});
const w = new Worker('setInterval(() => {}, 1000)', { eval: true, execArgv: [] });
await new Promise((resolve) => w.once('online', resolve));
// Allocation with many survivors per scavenge: what makes V8 grow its young generation.
let keep = [];
for (let i = 0; i < 3000000; i++) {
  keep.push({ i, s: 'x' + i });
  if (keep.length > 200000) keep = keep.slice(100000);
}
const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
await w.terminate();
process.stdout.write(JSON.stringify({ young, kept: keep.length }));
`;

t.test('a worker thread started after keepYoungGenerationSmall does not let the young generation grow', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE]);
  const { young } = JSON.parse(stdout) as { young: number };
  // Kept small, it ends at 2-3 MB; Node 24's V8 also resizes it on its own while allocating (seen at 4.75-11 MB in
  // the middle of this loop, flag kept, no worker), so a reading can land there. Lost, it is 32 MB (Node 20) or
  // 128 MB (Node 24) for good.
  t.ok(young < 16, `young generation ${young} MB after the worker and the allocations (32 or 128 MB when the flag is lost)`);
});
