/**
 * `npm run bench`: runs every bench/*.bench.ts (or the ones named on the command line, by substring) in its
 * own process, one after another, and lets each print its figures. Benchmarks print; they never assert.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
// Names filter the benchmarks; `--key=value` options go to each one (`npm run bench -- soak --minutes=1`).
const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
let failed = 0;
for (const f of files) {
  console.log(`\n## ${f.replace(/\.bench\.ts$/, '')}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${f}`, ...flags], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
if (failed > 0) {
  console.error(`${failed} benchmark(s) failed to run`);
  process.exitCode = 1;
}
