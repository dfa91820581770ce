/**
 * Registry figures, for each store side by side (SQLite, and PostgreSQL on a throwaway local cluster when the
 * binaries are installed): publishes per second over loopback HTTP (the full path: auth, idempotency,
 * validation, insert), and search latency with 100,000 entries (store bulk insert; queries through the store
 * and through the HTTP layer). Target: search p99 under 20 ms. `REGISTRY_BENCH_ENTRIES` changes the count.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueToken } from '../services/registry/proof/namespaces.js';
import { createRegistry, type RegistryOptions } from '../services/registry/server.js';
import type { RegistryEntry, SearchQuery } from '../services/registry/types.js';
import { postgresMissing, startPostgres } from '../test-support/postgres.js';
import { percentile, report, summarize } from './stats.js';

const N = Number(process.env.REGISTRY_BENCH_ENTRIES ?? 100_000);
const WORDS = (
  'bread soup rice lentil koshari falafel tahini oven fryer hob sensor safety rules allergen halal vegan spicy ' +
  'breakfast school relief kitchen community pressure steam grill bake roast simmer boil sear nutrition pack device'
).split(' ');
const KINDS = ['recipe_collection', 'device', 'rule_pack', 'extension', 'benchmark', 'catalog'];

let seed = 42;
/** xorshift32: a fixed, repeatable sequence. */
function rnd(n: number): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
}
const word = () => WORDS[rnd(WORDS.length)] as string;

function syntheticEntry(i: number): RegistryEntry {
  const s = rnd(100);
  return {
    kind: KINDS[rnd(KINDS.length)] as string,
    name: `org.bench-${i % 997}/${word()}-${i}`,
    version: `1.${i % 7}.${i}`,
    url: `https://bench.example/${i}.json`,
    sha256: i.toString(16).padStart(64, '0'),
    description: `${word()} ${word()} ${word()} for ${word()}`,
    tags: [word(), word()],
    status: s < 95 ? 'active' : s < 97 ? 'deprecated' : s < 98 ? 'recalled' : 'deleted',
    publishedAt: '2026-11-20T12:00:00Z',
  };
}

interface Figures {
  publishes: number;
  insertS: number;
  searchP50: number;
  searchP99: number;
  httpP99: number;
  rebuildMs: number;
}

async function measure(label: string, opts: RegistryOptions): Promise<Figures> {
  console.log(`\n### ${label}`);
  seed = 42;
  const reg = await createRegistry(opts);
  try {
    await reg.app.listen({ port: 0, host: '127.0.0.1' });
    const token = (await issueToken(reg.store, ['org.bench'], false, new Date())).token;
    await reg.store.recordProof({ namespace: 'org.bench', method: 'dns_txt', verifiedAt: '2026-11-20T12:00:00Z' });

    // Publishes per second, one client after another over loopback HTTP.
    let n = 0;
    const rounds: number[] = [];
    for (let r = 0; r < 3; r++) {
      const start = performance.now();
      let count = 0;
      while (performance.now() - start < 1500) {
        const res = await fetch(`${reg.ctx.registry}/v1/registry/publish`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': randomUUID() },
          body: JSON.stringify({
            kind: 'rule_pack',
            name: `org.bench/p${n}`,
            version: '1.0.0',
            url: `https://bench.example/p${n}`,
            sha256: 'a'.repeat(64),
          }),
        });
        if (res.status !== 201) throw new Error(`publish answered ${res.status}: ${await res.text()}`);
        n++;
        count++;
      }
      rounds.push((count * 1000) / (performance.now() - start));
    }
    report('publish over HTTP (sequential client)', rounds, 'publishes/s');

    const t0 = performance.now();
    for (let i = 0; i < N; i += 5000)
      await reg.store.insertEntries(Array.from({ length: Math.min(5000, N - i) }, (_, j) => syntheticEntry(i + j)));
    const insertS = (performance.now() - t0) / 1000;
    console.log(`bulk insert of ${N} entries: ${insertS.toFixed(1)} s`);

    const queries: [string, Partial<SearchQuery>][] = [
      ['no filter (newest 100)', {}],
      ['q common word', { q: 'soup' }],
      ['q two words', { q: 'lentil for' }],
      ['q rare (no match)', { q: 'zzzqx' }],
      ['q 2 chars', { q: 'ov' }],
      ['q 2 chars rare', { q: 'qz' }],
      ['q 1 char', { q: 's' }],
      ['kind', { kind: 'device' }],
      ['kind + q', { kind: 'device', q: 'oven' }],
      ['status=deleted', { status: 'deleted' }],
      ['status=deleted + q', { status: 'deleted', q: 'soup' }],
      ['include_deleted + q', { q: 'safety', includeDeleted: true }],
      ['q name prefix', { q: 'org.bench-12/' }],
    ];
    const all: number[] = [];
    for (const [name, q] of queries) {
      const samples: number[] = [];
      for (let i = 0; i < 200; i++) {
        const s = performance.now();
        await reg.store.search({ limit: 100, ...q });
        samples.push(performance.now() - s);
      }
      all.push(...samples);
      const st = summarize(samples);
      console.log(`search store ${name}: p50 ${st.p50.toFixed(2)} ms / p99 ${st.p99.toFixed(2)} ms`);
    }
    const st = summarize(all);
    console.log(
      `search store, all query shapes (n=${st.n}): p50 ${st.p50.toFixed(2)} ms / p99 ${st.p99.toFixed(2)} ms   (target p99 < 20 ms)`,
    );

    const http: number[] = [];
    const paths = [
      '/v1/registry/entries',
      '/v1/registry/entries?q=soup',
      '/v1/registry/entries?kind=device&q=oven',
      '/v1/registry/entries?q=ov',
    ];
    for (let i = 0; i < 400; i++) {
      const s = performance.now();
      const res = await reg.app.inject({ method: 'GET', url: paths[i % paths.length] as string });
      if (res.statusCode !== 200) throw new Error(`search answered ${res.statusCode}`);
      http.push(performance.now() - s);
    }
    const hs = summarize(http);
    console.log(
      `search through the HTTP layer (inject, 100 results): p50 ${hs.p50.toFixed(2)} ms / p99 ${hs.p99.toFixed(2)} ms   (target p99 < 20 ms)`,
    );
    const rebuild: number[] = [];
    const served: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 5; i++) {
      await reg.store.setStatus({ name: 'org.bench/p0', status: i % 2 ? 'active' : 'deprecated', at: new Date().toISOString() });
      const s = performance.now();
      bytes = (await reg.ctx.documents.get('registry')).body.length;
      rebuild.push(performance.now() - s);
      const f = performance.now();
      const res = await fetch(`${reg.ctx.registry}/v1/registry.json`);
      await res.arrayBuffer();
      served.push(performance.now() - f);
    }
    report(`registry.json rebuilt after a change (${N + n} entries, ${(bytes / 1e6).toFixed(1)} MB)`, rebuild, 'ms');
    report('registry.json served over loopback HTTP (already built)', served, 'ms');
    return {
      publishes: percentile(
        [...rounds].sort((a, b) => a - b),
        50,
      ),
      insertS,
      searchP50: st.p50,
      searchP99: st.p99,
      httpP99: hs.p99,
      rebuildMs: percentile(
        [...rebuild].sort((a, b) => a - b),
        50,
      ),
    };
  } finally {
    await reg.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'registry-bench-'));
  const results: [string, Figures][] = [];
  try {
    results.push(['SQLite', await measure('SQLite (embedded, WAL)', { dataDir: join(dir, 'sqlite') })]);
    const missing = postgresMissing();
    if (missing) console.log(`\nPostgreSQL skipped: ${missing}`);
    else {
      const pg = await startPostgres();
      try {
        const db = await pg.createDatabase('bench');
        results.push(['PostgreSQL', await measure('PostgreSQL (local throwaway cluster, fsync off)', { dataDir: join(dir, 'pg'), db })]);
      } finally {
        await pg.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const rows: [string, (f: Figures) => string][] = [
    ['publishes/s (HTTP, sequential, median)', (f) => f.publishes.toFixed(0)],
    [`bulk insert of ${N} entries (s)`, (f) => f.insertS.toFixed(1)],
    [`search p50 with ${N} entries (ms)`, (f) => f.searchP50.toFixed(2)],
    [`search p99 with ${N} entries (ms)`, (f) => f.searchP99.toFixed(2)],
    ['search p99 through HTTP (ms)', (f) => f.httpP99.toFixed(2)],
    ['registry.json rebuild, median (ms)', (f) => f.rebuildMs.toFixed(0)],
  ];
  console.log('\n### side by side');
  console.log(`${'figure'.padEnd(42)}${results.map(([name]) => name.padStart(12)).join('')}`);
  for (const [name, get] of rows) console.log(`${name.padEnd(42)}${results.map(([, f]) => get(f).padStart(12)).join('')}`);
}

await main();
