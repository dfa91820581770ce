/**
 * Recipe API figures over a generated catalog of 2,000 recipes in the catalog shape: start-up (load,
 * validate, build the in-memory indexes), search latency in process and over HTTP (p50, p99, requests/s),
 * and the same HTTP search while the index's /v1/search is loaded side by side. Printed, never asserted.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { documentHash } from '../core/hash.js';
import { parseJson } from '../core/json-parse.js';
import { parseJsonFast } from '../core/json-parse-fast.js';
import { generateKeyFile } from '../core/keys.js';
import { validate } from '../schemas/index.js';
import { writeCatalog } from '../services/catalog/generate.js';
import { buildIndex } from '../services/index/build.js';
import { createIndexServer } from '../services/index/server.js';
import { loadCatalog } from '../services/recipe-api/catalog.js';
import { type Json, rowOf } from '../services/recipe-api/rows.js';
import { createRecipeApi } from '../services/recipe-api/server.js';
import { report, summarize } from './stats.js';

const COUNT = 2000;
const dir = mkdtempSync(join(tmpdir(), 'hearth-recipe-api-bench-'));
const recipes = join(dir, 'recipes');
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

try {
  writeCatalog(recipes, COUNT, 'bench', 'catalog');
  const starts: number[] = [];
  const cpu: number[] = [];
  let api: ReturnType<typeof createRecipeApi> | undefined;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const a = createRecipeApi({ dir: recipes });
    const c = process.cpuUsage(c0);
    starts.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
    if (api) await a.app.close();
    else api = a;
  }
  report(`start-up: load, validate and index ${COUNT} recipes, wall clock (3 runs)`, starts, 'ms', '< 1000 ms');
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
  if (!api) throw new Error('no server');

  const inproc: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = performance.now();
    await api.app.inject(`/api/search?${QUERIES[i % QUERIES.length]}`);
    inproc.push(performance.now() - t0);
  }
  const s = summarize(inproc);
  report(`search, in process (inject), p50 (${s.n} requests)`, [s.p50], 'ms');
  report('search, in process (inject), p99', [s.p99], 'ms', '< 10 ms');

  const base = await api.app.listen({ port: 0, host: '127.0.0.1' });
  await httpRun(base, 50, (i) => `/api/search?q=warm${i}`);
  const alone = await httpRun(base, 1000, (i) => `/api/search?${QUERIES[i % QUERIES.length]}`);
  const a = summarize(alone.lat);
  report('search over HTTP alone, p50', [a.p50], 'ms');
  report('search over HTTP alone, p99', [a.p99], 'ms', '< 10 ms');
  report('search over HTTP alone, sequential requests/s', [alone.perS], 'req/s');

  // Side by side: the index built from the same recipes, searched at the same time from the same process.
  const key = generateKeyFile({ kid: 'bench#k1', actor: 'bench', validFrom: '2026-01-01T00:00:00Z' });
  buildIndex({ recipesDir: recipes, outDir: join(dir, 'site'), key });
  const index = createIndexServer({ dir: join(dir, 'site'), ratePerSecond: 1e6, burst: 1e6 });
  const ibase = await index.app.listen({ port: 0, host: '127.0.0.1' });
  const words = ['lentil soup', 'shakshuka', 'koshari', 'paella', 'creme brulee'];
  const [both, idx] = await Promise.all([
    httpRun(base, 1000, (i) => `/api/search?${QUERIES[i % QUERIES.length]}`),
    httpRun(ibase, 1000, (i) => `/v1/search?q=${encodeURIComponent(words[i % words.length] as string)}&limit=20`),
  ]);
  const b = summarize(both.lat);
  const x = summarize(idx.lat);
  report('search over HTTP beside the index search, p50', [b.p50], 'ms');
  report('search over HTTP beside the index search, p99', [b.p99], 'ms', '< 10 ms');
  report('search over HTTP beside the index search, requests/s', [both.perS], 'req/s');
  report('index /v1/search at the same time, p99', [x.p99], 'ms');
  report('index /v1/search at the same time, requests/s', [idx.perS], 'req/s');
  const mem = process.memoryUsage();
  report('heap used with both servers', [mem.heapUsed / 1048576], 'MiB');
  await index.app.close();
  await api.app.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
