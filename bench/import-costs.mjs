// `node bench/import-costs.mjs GROUPS.json`: in this fresh process, import each group of modules in the order
// given and print, per group, the wall time, CPU time and resident memory its import added, as one JSON line.
// GROUPS.json is `[{name, modules: [url or file path]}]` (bench/start.bench.ts writes it from a recorded start).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const groups = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
const out = [];
for (const g of groups) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r0 = rss();
  let failed = 0;
  for (const m of g.modules) {
    try {
      if (m.startsWith('file:')) await import(m);
      else require(m);
    } catch {
      failed++;
    }
  }
  const c = process.cpuUsage(c0);
  out.push({ name: g.name, ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, rssMb: rss() - r0, failed });
}
process.stdout.write(`${JSON.stringify(out)}\n`);
