/**
 * Recipe API figures over a generated catalog of 2,000 recipes in the catalog shape (`--count=N` for another
 * size). First what a user meets, each server its own process spawned as a user would, rounds alternating with
 * a floor (a bare Node process starting Fastify with one route, bench/fastify-floor.mjs) measured in the same
 * run: spawn to the first 200 on /api/search cold (`--no-index-cache`), as the first start that writes the index
 * cache (on by default; the cache kept in a temporary XDG_CACHE_HOME), as a restart that uses it and as a start
 * after a few files changed (their rows loaded again, the rest taken from the cache); resident memory
 * (smaps_rollup) once the index is built, a few searches ran and any index cache is written; search p99 over HTTP
 * keep-alive on a real socket; `hearth index serve` beside it. Then start-up in process (load, validate, index)
 * and its phases, search latency in process (per query kind, with the GC pauses), and over HTTP beside the
 * index's /v1/search. A summary against the targets ends the output. Printed, never asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { documentHash } from '../core/hash.js';
import { parseJson } from '../core/json-parse.js';
import { parseJsonFast } from '../core/json-parse-fast.js';
import { generateKeyFile } from '../core/keys.js';
import { validate } from '../schemas/index.js';
import { buildIndex } from '../services/index/build/build.js';
import { createIndexServer } from '../services/index/serve/server.js';
import { loadCatalog } from '../services/recipe-api/catalog.js';
import { type Json, rowOf, Strings } from '../services/recipe-api/rows.js';
import { createRecipeApi } from '../services/recipe-api/server.js';
import { CHANGED, touchSome, writeBenchCatalog } from './catalog-files.js';
import { cliKind, cpuMs, rssMb, type Spawned, smapsMb, spawnServer, stopChild } from './spawn-server.js';
import { percentile, report, summarize } from './stats.js';

// `--count=N` for another catalog size (docs/recipe-api.md records 10,000); `--rounds=N` spawns of each kind.
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const COUNT = Number(arg('count') ?? 2000);
const ROUNDS = Number(arg('rounds') ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'hearth-recipe-api-bench-'));
// Every spawned server keeps its default index cache here, never in the real home (cache-location.ts).
const cacheHome = join(dir, 'xdg-cache');
process.env.XDG_CACHE_HOME = cacheHome;
delete process.env.CACHE_DIRECTORY;
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
const median = (v: number[]) =>
  percentile(
    [...v].sort((a, b) => a - b),
    50,
  );

/** The floor: bench/fastify-floor.mjs spawned with plain node to its first 200 (as spawnServer does hearth). */
function spawnFloor(): Promise<Spawned> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [new URL('./fastify-floor.mjs', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const kill = () => stopChild(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`the floor exited ${code}`)));
    child.stdout.on('data', async (d: Buffer) => {
      const had = /ready (http:\/\/\S+)/.test(out);
      out += d.toString();
      const url = /ready (http:\/\/\S+)/.exec(out)?.[1];
      if (!url || had) return;
      for (;;) {
        const res = await fetch(`${url}/v1/safety-limits`).catch(() => undefined);
        await res?.arrayBuffer();
        if (res?.status === 200) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      resolve({ ms: performance.now() - t0, pid: child.pid as number, url, kill, output: () => out });
    });
  });
}

/** Resident and anonymous memory of a server once a few searches ran (the index built, the code warm). */
async function memoryAfterSearches(s: Spawned, path: (i: number) => string, writes: boolean): Promise<{ rss: number; anon: number }> {
  await httpRun(s.url, QUERIES.length, path);
  // A start that writes the index cache does so once quiet (platform/when-quiet.ts): memory is read after it.
  if (writes)
    for (let waited = 0; !/index cache (written|.* could not be written)/.test(s.output()) && waited < 10_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 300));
  return smapsMb(s.pid);
}

type Kind = { ms: number[]; cpu: number[]; main: number[]; rss: number[]; anon: number[] };
const kind = (): Kind => ({ ms: [], cpu: [], main: [], rss: [], anon: [] });

/** CPU time of a process's main thread so far, ms (10 ms ticks): what a start waits for when workers have cores. */
function mainThreadCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** Spawn with HEARTH_LOAD_WORKERS set to `workers` (load-parallel.ts), the environment put back after. */
async function withWorkers<T>(workers: number, f: () => Promise<T>): Promise<T> {
  process.env.HEARTH_LOAD_WORKERS = String(workers);
  try {
    return await f();
  } finally {
    delete process.env.HEARTH_LOAD_WORKERS;
  }
}

try {
  const loadBefore = loadavg();
  console.log(`load average before: ${loadBefore}`);
  writeBenchCatalog(recipes, COUNT);
  const key = generateKeyFile({ kid: 'bench#k1', actor: 'bench', validFrom: '2026-01-01T00:00:00Z' });
  buildIndex({ recipesDir: recipes, outDir: site, key });

  // What a user meets, rounds alternating: the floor; the recipe API cold, writing its index cache, restarted over
  // it; the index.
  const how = cliKind();
  const serve = ['recipe-api', 'serve', '--catalog', recipes, '--port', '0'];
  const probe = '/api/search?q=lentil%20soup';
  const floor = kind();
  const cold = kind();
  const writing = kind();
  const cached = kind();
  const changed = kind();
  const indexKind = kind();
  // The cold start again with one and with two worker threads checking documents (opt-in: HEARTH_LOAD_WORKERS).
  const threaded = [kind(), kind()];
  const floorP99: number[] = [];
  const apiP99: number[] = [];
  const cachedP99: number[] = [];
  const record = async (k: Kind, s: Spawned, path: (i: number) => string, p99?: number[], writes = false) => {
    k.ms.push(s.ms);
    k.cpu.push(cpuMs(s.pid));
    k.main.push(mainThreadCpuMs(s.pid));
    const m = await memoryAfterSearches(s, path, writes);
    k.rss.push(m.rss);
    k.anon.push(m.anon);
    if (p99) {
      // Keep-alive over a real socket (fetch keeps its connection), sequential. Steady state: 500 requests of the
      // mix first, so that each kind's one-time work (the JIT's tiers, a sort order kept per key, a typo word's
      // scan) is done; over the first 500 after a start the p99 is 2-3 times higher (docs/recipe-api.md).
      await httpRun(s.url, 500, path);
      p99.push(summarize((await httpRun(s.url, 1000, path)).lat).p99);
    }
    await s.kill();
  };
  for (let i = 0; i < ROUNDS; i++) {
    await record(floor, await spawnFloor(), () => '/v1/safety-limits', floorP99);
    await record(cold, await spawnServer([...serve, '--no-index-cache'], probe), apiPath, apiP99);
    // The default: no cache yet (a first start: full load, then the cache written), then a restart that uses it.
    rmSync(cacheHome, { recursive: true, force: true });
    await record(writing, await spawnServer(serve, probe), apiPath, undefined, true);
    await record(cached, await spawnServer(serve, probe), apiPath, cachedP99);
    // A sync replaced a few recipes: CHANGED files get a new status-change time, so their rows are loaded again.
    touchSome(recipes, CHANGED, i);
    await record(changed, await spawnServer(serve, probe), apiPath, undefined, true);
    for (const [w, k] of threaded.entries())
      await record(k, await withWorkers(w + 1, () => spawnServer([...serve, '--no-index-cache'], probe)), apiPath);
    await record(indexKind, await spawnServer(['index', 'serve', '--dir', site, '--port', '0'], '/v1/search?q=lentil%20soup'), indexPath);
  }
  const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2);
  const loadSpawns = loadavg();
  console.log(
    `spawned (${how}), ${COUNT} recipes, ${ROUNDS} rounds alternating, ${availableParallelism()} cores; load average now ${loadSpawns}`,
  );
  report('floor (node + Fastify, one route): spawn to first 200', floor.ms, 'ms');
  report('  its resident memory after a few requests', floor.rss, 'MB');
  report('  its p99 over HTTP keep-alive (1,000 sequential requests after 500)', floorP99, 'ms');
  // Each kind of start: its name in the figures, its name in the summary, its runs, its search p99s (if measured).
  const kinds = [
    ['hearth recipe-api serve --no-index-cache (cold)', 'cold (--no-index-cache)', cold, apiP99],
    [
      'hearth recipe-api serve, first start (full load, then its index cache written)',
      'first start, writing the cache',
      writing,
      undefined,
    ],
    ['hearth recipe-api serve, restart (its index cache used)', 'restart, cache used', cached, cachedP99],
    [
      `hearth recipe-api serve after ${CHANGED} of the files changed (the rest from the index cache)`,
      `${CHANGED} files changed`,
      changed,
      undefined,
    ],
    ['hearth recipe-api serve --no-index-cache, HEARTH_LOAD_WORKERS=1', 'cold, 1 load worker', threaded[0] as Kind, undefined],
    ['hearth recipe-api serve --no-index-cache, HEARTH_LOAD_WORKERS=2', 'cold, 2 load workers', threaded[1] as Kind, undefined],
  ] as const;
  for (const [name, , k, p99] of kinds) {
    report(`${name}: spawn to first 200 on /api/search`, k.ms, 'ms', `≤ 600 ms; ${ratio(k.ms, floor.ms)}× the floor`);
    report('  its CPU time (user + system) at that point', k.cpu, 'ms');
    report('  of which its main thread (the rest: V8 helper threads, load workers)', k.main, 'ms');
    report('  its resident memory once a few searches ran', k.rss, 'MB', `≤ 100 MB; ${ratio(k.rss, floor.rss)}× the floor`);
    report('  of which anonymous (smaps_rollup; the rest is the node binary and libraries, shared)', k.anon, 'MB');
    if (p99)
      report(
        '  search p99 over HTTP keep-alive (1,000 sequential requests of the mix after 500)',
        p99,
        'ms',
        `< 5 ms; ${ratio(p99, floorP99)}× the floor`,
      );
  }
  report(`hearth index serve: spawn to first 200 on /v1/search, same ${COUNT} recipes`, indexKind.ms, 'ms');
  report('  its CPU time (user + system) at that point', indexKind.cpu, 'ms');
  report('  its resident memory once a few searches ran', indexKind.rss, 'MB');

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
  const strings = new Strings();
  phase('rows (screens, claims, nutrition)', () => docs.map((d, i) => rowOf(d, i, strings)));
  phase('whole load (loadCatalog, with the search index)', () => loadCatalog(recipes, { workers: 0 }));
  const loadAfter = loadavg();
  console.log(`load average after: ${loadAfter}`);
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(
    `\nsummary, ${COUNT} recipes, medians of ${ROUNDS} spawns (issue 26 targets); load average ${loadBefore} before, ${loadSpawns} after the spawns, ${loadAfter} at the end:`,
  );
  for (const [, name, k, p99] of kinds) {
    const [ms, rss] = [median(k.ms), median(k.rss)];
    const p = p99 ? `, search p99 ${median(p99).toFixed(2)} ms (${ratio(p99, floorP99)}× floor; < 5 ms ${met(median(p99) < 5)})` : '';
    console.log(
      `  ${name}: start ${ms.toFixed(0)} ms (${ratio(k.ms, floor.ms)}× floor; ≤ 600 ms ${met(ms <= 600)}), RSS ${rss.toFixed(1)} MB (${ratio(k.rss, floor.rss)}× floor; ≤ 100 MB ${met(rss <= 100)}), CPU ${median(k.cpu).toFixed(0)} ms (main thread ${median(k.main).toFixed(0)})${p}`,
    );
  }
  console.log(
    `  floor: start ${median(floor.ms).toFixed(0)} ms, RSS ${median(floor.rss).toFixed(1)} MB, p99 ${median(floorP99).toFixed(2)} ms`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
