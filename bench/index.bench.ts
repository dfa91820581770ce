/**
 * Index figures: build time for 2,000 synthetic recipes (cold, unchanged, one recipe changed), search latency
 * over the same catalog (in process and over HTTP; target p99 under 20 ms) and one match request.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { documentHash } from '../core/hash.js';
import { generateKeyFile } from '../core/keys.js';
import { writeCatalog } from '../services/catalog/generate.js';
import { buildIndex } from '../services/index/build/build.js';
import { createIndexServer } from '../services/index/serve/server.js';
import { report, summarize } from './stats.js';

const COUNT = 2000;
const dir = mkdtempSync(join(tmpdir(), 'hearth-index-bench-'));
const recipes = join(dir, 'recipes');
const out = join(dir, 'out');
const key = generateKeyFile({ kid: 'bench#k1', actor: 'bench', validFrom: '2026-01-01T00:00:00Z' });

function timed<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const r = fn();
  return [r, performance.now() - t0];
}

try {
  const [, genMs] = timed(() => writeCatalog(recipes, COUNT, 'bench'));
  report(`catalog generate (${COUNT} recipes)`, [genMs], 'ms');

  const [cold, coldMs] = timed(() => buildIndex({ recipesDir: recipes, outDir: out, key }));
  report(`index build, cold (${cold.recipes} recipes, ${cold.written} files)`, [coldMs], 'ms');
  const [, sameMs] = timed(() => buildIndex({ recipesDir: recipes, outDir: out, key }));
  report('index build, nothing changed', [sameMs], 'ms');
  const file = join(recipes, 'syn-00042.svc.json');
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const { hash: _h, ...rest }: Record<string, unknown> = { ...doc, revision: 99 };
  writeFileSync(file, JSON.stringify({ ...rest, hash: documentHash(rest) }));
  const [one, oneMs] = timed(() => buildIndex({ recipesDir: recipes, outDir: out, key }));
  report(`index build, one recipe changed (${one.written} files rewritten)`, [oneMs], 'ms');

  const { app, store } = createIndexServer({ dir: out, ratePerSecond: 1e6, burst: 1e6 });
  const queries = [
    'shakshuka',
    'shakshuak',
    'creme brulee',
    'كشري',
    'شوربه عدس',
    'paella',
    'lentil soup',
    'spicy',
    'koshari alexandria',
    'zzzz',
  ];
  const search = store.get().search;
  const firstSeen: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    search.search({ q, limit: 20 });
    firstSeen.push(performance.now() - t0);
  }
  report('search in process, first time each query is seen (cold)', firstSeen, 'ms');
  const inproc: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const q = queries[i % queries.length] as string;
    const t0 = performance.now();
    search.search({
      q,
      lang: i % 2 ? 'ar' : 'en',
      limit: 20,
      ...(i % 5 === 0 ? { minLevel: 'V1' as const, excludeAllergens: ['milk'] } : {}),
    });
    inproc.push(performance.now() - t0);
  }
  const s = summarize(inproc);
  report(`search in process, p50 (${COUNT} recipes, ${s.n} queries)`, [s.p50], 'ms');
  report('search in process, p99', [s.p99], 'ms', '< 20 ms');

  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  for (let i = 0; i < 50; i++) await (await fetch(`${base}/v1/search?q=warm${i}`)).arrayBuffer();
  const http: number[] = [];
  for (let i = 0; i < 400; i++) {
    const q = encodeURIComponent(queries[i % queries.length] as string);
    const t0 = performance.now();
    const res = await fetch(`${base}/v1/search?q=${q}&limit=20`);
    await res.arrayBuffer();
    http.push(performance.now() - t0);
  }
  const h = summarize(http);
  report(`search over HTTP, p50 (${h.n} requests)`, [h.p50], 'ms');
  report('search over HTTP, p99', [h.p99], 'ms', '< 20 ms');

  const fryer = readFileSync(new URL('../examples/devices/demo-fryer-robot.json', import.meta.url), 'utf8');
  const match: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}/v1/match`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: fryer });
    await res.arrayBuffer();
    match.push(performance.now() - t0);
  }
  report(`match, demo fryer against ${COUNT} recipes (5 requests)`, match, 'ms');
  await app.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
