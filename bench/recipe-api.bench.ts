/**
 * Recipe API figures over a generated catalog of 2,000 recipes in the catalog shape: start-up (load,
 * validate, build the in-memory indexes), search latency in process (per query kind, with the GC pauses)
 * and over HTTP (p50, p99, requests/s), the same HTTP search while the index's /v1/search is loaded side by
 * side, and what a user meets: `hearth recipe-api serve` and `hearth index serve` spawned to their first 200
 * on a search, then searched side by side, each in its own process. Printed, never asserted.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { documentHash } from '../core/hash.js';
import { parseJson } from '../core/json-parse.js';
import { parseJsonFast } from '../core/json-parse-fast.js';
import { generateKeyFile } from '../core/keys.js';
import { validate } from '../schemas/index.js';
import { writeCatalog } from '../services/catalog/generate.js';
import { buildIndex } from '../services/index/build/build.js';
import { createIndexServer } from '../services/index/serve/server.js';
import { loadCatalog } from '../services/recipe-api/catalog.js';
import { type Json, rowOf } from '../services/recipe-api/rows.js';
import { createRecipeApi } from '../services/recipe-api/server.js';
import { cliKind, cpuMs, rssMb, smapsMb, spawnServer } from './spawn-server.js';
import { report, summarize } from './stats.js';

// `--count=N` for another catalog size (docs/recipe-api.md records 10,000).
const COUNT = Number(process.argv.find((a) => a.startsWith('--count='))?.slice('--count='.length) ?? 2000);
const dir = mkdtempSync(join(tmpdir(), 'hearth-recipe-api-bench-'));
const recipes = join(dir, 'recipes');
const site = join(dir, 'site');
const QUERIES = [
  'q=lentil%20soup',
  'q=lentl%20soup',
  'q=shakshuka&diet=vegetarian',
  'q=%D9%83%D8%B4%D8%B1%D9%8A',
  'q=creme%20brulee&sort=kcal',
  'diet=halal&sort=-protein',
  'kids=true&limit=25',
  'q=koshari&cuisine=EG&kcal_max=600',
  'method=bake&cost_tier=budget',
  'ingredient=lentils&exclude_ingredient=onion',
];
const WORDS = ['lentil soup', 'shakshuka', 'koshari', 'paella', 'creme brulee'];
const apiPath = (i: number) => `/api/search?${QUERIES[i % QUERIES.length]}`;
const indexPath = (i: number) => `/v1/search?q=${encodeURIComponent(WORDS[i % WORDS.length] as string)}&limit=20`;

/** GC pauses of this process while `f` runs (count, longest, total). */
async function withGc<T>(f: () => Promise<T>): Promise<{ out: T; n: number; max: number; total: number }> {
  const pauses: number[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push(e.duration);
  });
  obs.observe({ entryTypes: ['gc'] });
  const out = await f();
  await new Promise((r) => setTimeout(r, 20));
  obs.disconnect();
  return { out, n: pauses.length, max: Math.max(0, ...pauses), total: pauses.reduce((a, b) => a + b, 0) };
}

async function httpRun(base: string, n: number, path: (i: number) => string): Promise<{ lat: number[]; perS: number }> {
  const lat: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    const res = await fetch(`${base}${path(i)}`);
    await res.arrayBuffer();
    lat.push(performance.now() - s);
  }
  return { lat, perS: (n * 1000) / (performance.now() - t0) };
}

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

try {
  console.log(`load average before: ${loadavg()}`);
  writeCatalog(recipes, COUNT, 'bench', 'catalog');
  const key = generateKeyFile({ kid: 'bench#k1', actor: 'bench', validFrom: '2026-01-01T00:00:00Z' });
  buildIndex({ recipesDir: recipes, outDir: site, key });

  // What a user meets: spawn to the first 200 on a search, the recipe API beside the index, rounds alternating.
  const how = cliKind();
  const spawned = {
    api: [] as number[],
    apiCpu: [] as number[],
    apiRss: [] as number[],
    apiAnon: [] as number[],
    idx: [] as number[],
    idxCpu: [] as number[],
  };
  for (let i = 0; i < 5; i++) {
    const a = await spawnServer(['recipe-api', 'serve', '--catalog', recipes, '--port', '0'], '/api/search?q=lentil%20soup');
    spawned.api.push(a.ms);
    spawned.apiCpu.push(cpuMs(a.pid));
    // Resident memory once serving: 300 ms after the first answer, as bench/start.bench.ts reads hearth start.
    await new Promise((r) => setTimeout(r, 300));
    const m = smapsMb(a.pid);
    spawned.apiRss.push(m.rss);
    spawned.apiAnon.push(m.anon);
    await a.kill();
    const x = await spawnServer(['index', 'serve', '--dir', site, '--port', '0'], '/v1/search?q=lentil%20soup');
    spawned.idx.push(x.ms);
    spawned.idxCpu.push(cpuMs(x.pid));
    await x.kill();
  }
  report(`spawn to first 200 on /api/search, hearth recipe-api serve, ${COUNT} recipes (${how})`, spawned.api, 'ms', '≤ 600 ms');
  report('  its CPU time (user + system) at that point', spawned.apiCpu, 'ms');
  report('  its resident memory 300 ms later', spawned.apiRss, 'MB', '≤ 100 MB');
  report('  of which anonymous (smaps_rollup; the rest is the node binary and libraries, shared)', spawned.apiAnon, 'MB');
  report(`spawn to first 200 on /v1/search, hearth index serve, same ${COUNT} recipes (${how})`, spawned.idx, 'ms');
  report('  its CPU time (user + system) at that point', spawned.idxCpu, 'ms');

  // The server searched below is the first one this process builds, so its heap holds the catalog and little
  // else (the phase figures at the end keep their own copies of the files alive).
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const server = createRecipeApi({ dir: recipes });
  const c1 = process.cpuUsage(c0);
  const starts = [performance.now() - t0];
  const cpu = [(c1.user + c1.system) / 1000];

  // In process, each query kind on its own: which kind makes the tail.
  const perKind = new Map<string, number[]>(QUERIES.map((q) => [q, []]));
  const inproc = await withGc(async () => {
    const all: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const t0 = performance.now();
      await server.app.inject(apiPath(i));
      const ms = performance.now() - t0;
      all.push(ms);
      perKind.get(QUERIES[i % QUERIES.length] as string)?.push(ms);
    }
    return all;
  });
  const s = summarize(inproc.out);
  report(`search, in process (inject), p50 (${s.n} requests)`, [s.p50], 'ms');
  report('search, in process (inject), p99', [s.p99], 'ms', '< 10 ms');
  for (const [q, lat] of perKind) {
    const k = summarize(lat);
    console.log(`  ${q}: p50 ${k.p50.toFixed(2)} / p99 ${k.p99.toFixed(2)} / max ${k.max.toFixed(2)} ms`);
  }
  console.log(`  GC pauses meanwhile: ${inproc.n}, longest ${inproc.max.toFixed(2)} ms, total ${inproc.total.toFixed(0)} ms`);

  const base = await server.app.listen({ port: 0, host: '127.0.0.1' });
  await httpRun(base, 50, (i) => `/api/search?q=warm${i}`);
  const alone = await withGc(() => httpRun(base, 1000, apiPath));
  const a = summarize(alone.out.lat);
  report('search over HTTP alone, p50', [a.p50], 'ms');
  report('search over HTTP alone, p99', [a.p99], 'ms', '< 5 ms');
  report('search over HTTP alone, sequential requests/s', [alone.out.perS], 'req/s');
  console.log(`  GC pauses meanwhile: ${alone.n}, longest ${alone.max.toFixed(2)} ms, total ${alone.total.toFixed(0)} ms`);

  // Side by side in one process: the index built from the same recipes, searched at the same time (both
  // servers and both clients share this event loop, so each waits behind the other's work).
  const index = createIndexServer({ dir: site, ratePerSecond: 1e6, burst: 1e6 });
  const ibase = await index.app.listen({ port: 0, host: '127.0.0.1' });
  const [both, idx] = await Promise.all([httpRun(base, 1000, apiPath), httpRun(ibase, 1000, indexPath)]);
  const b = summarize(both.lat);
  const x = summarize(idx.lat);
  report('search over HTTP beside the index search, one process, p50', [b.p50], 'ms');
  report('search over HTTP beside the index search, one process, p99', [b.p99], 'ms', '< 10 ms');
  report('search over HTTP beside the index search, one process, requests/s', [both.perS], 'req/s');
  report('index /v1/search at the same time, p99', [x.p99], 'ms');
  report('index /v1/search at the same time, requests/s', [idx.perS], 'req/s');
  const mem = process.memoryUsage();
  report('heap used with both servers', [mem.heapUsed / 1048576], 'MiB');
  await index.app.close();
  await server.app.close();

  // Side by side as deployed: each server in its own process (the commands above), the clients here.
  const ra = await spawnServer(['recipe-api', 'serve', '--catalog', recipes, '--port', '0'], '/api/search?q=lentil%20soup');
  const ix = await spawnServer(
    ['index', 'serve', '--dir', site, '--port', '0', '--rate', '1000000', '--burst', '1000000'],
    '/v1/search?q=soup',
  );
  try {
    await httpRun(ra.url, 200, apiPath);
    const [rb, ib] = await Promise.all([httpRun(ra.url, 1000, apiPath), httpRun(ix.url, 1000, indexPath)]);
    const r = summarize(rb.lat);
    report(`search beside the index search, own processes (${how}), p50`, [r.p50], 'ms');
    report(`search beside the index search, own processes (${how}), p99`, [r.p99], 'ms', '< 10 ms');
    // The recipe API alone over HTTP in its own process, as deployed: the p99 < 5 ms.
    const own = await httpRun(ra.url, 1000, apiPath);
    report(`search over HTTP, hearth recipe-api serve alone (${how}), p99`, [summarize(own.lat).p99], 'ms', '< 5 ms');
    report('  index /v1/search at the same time, p99', [summarize(ib.lat).p99], 'ms');
    report('  resident memory of hearth recipe-api serve after the run', [rssMb(ra.pid)], 'MB');
  } finally {
    await ra.kill();
    await ix.kill();
  }

  for (let i = 0; i < 2; i++) {
    const t1 = performance.now();
    const c2 = process.cpuUsage();
    const more = createRecipeApi({ dir: recipes });
    const c3 = process.cpuUsage(c2);
    starts.push(performance.now() - t1);
    cpu.push((c3.user + c3.system) / 1000);
    await more.app.close();
  }
  report(`start-up in process: load, validate and index ${COUNT} recipes, wall clock (3 runs)`, starts, 'ms', '< 1000 ms');
  report('start-up, CPU time of this process (user + system; less sensitive to other load)', cpu, 'ms');
  // Where start-up goes: each phase over the same files, in CPU ms (the strict parser beside the fast path).
  const files = readdirSync(recipes).map((f) => join(recipes, f));
  const phase = <T>(name: string, f: () => T): T => {
    const c0 = process.cpuUsage();
    const out = f();
    const c = process.cpuUsage(c0);
    report(`  phase: ${name}`, [(c.user + c.system) / 1000], 'ms CPU');
    return out;
  };
  const texts = phase('read files', () => files.map((f) => readFileSync(f, 'utf8')));
  phase('strict parser (parseJson), for comparison', () => texts.map((x) => parseJson(x)));
  const docs = phase('parseJsonFast', () => texts.map((x) => parseJsonFast(x) as Json));
  phase('schema validation (precompiled when built)', () => docs.map((d) => validate.recipe(d)));
  phase('hash check (RFC 8785 + SHA-256)', () => docs.map((d) => documentHash(d)));
  phase('rows (screens, claims, nutrition)', () => docs.map((d, i) => rowOf(d, i)));
  phase('whole load (loadCatalog, with the search index)', () => loadCatalog(recipes));

  console.log(`load average after: ${loadavg()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
