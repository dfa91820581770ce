/**
 * Sync figures: a full sync of 2,000 generated recipes (the catalog of `hearth catalog generate --count 2000
 * --seed 1`, built into an index and served by `hearth index serve` in its own process on loopback) with
 * every check on (target under 10 s), the syncing process's RSS before and at its peak (memory stays bounded:
 * documents go to the store as they are verified), then an incremental sync after 10 recipes changed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { documentHash } from '../core/hash.js';
import { generateKeyFile, publicRecord } from '../core/keys.js';
import { MigrationRegistry } from '../platform/sqlite/migrations.js';
import { openDatabase } from '../runtime/store/db.js';
import { RecallRepo, recallsMigration } from '../runtime/store/recalls.js';
import { syncIndex } from '../runtime/sync/client.js';
import { SyncStore, syncMigration } from '../runtime/sync/store.js';
import { writeCatalog } from '../services/catalog/generate.js';
import { buildIndex } from '../services/index/build/build.js';
import { hearthArgv } from '../test-support/cli.js';
import { report } from './stats.js';

const COUNT = 2000;
const dir = mkdtempSync(join(tmpdir(), 'hearth-sync-bench-'));
const recipes = join(dir, 'recipes');
const site = join(dir, 'site');
const key = generateKeyFile({ kid: 'bench#k1', actor: 'bench', validFrom: '2026-01-01T00:00:00Z' });
const mb = (bytes: number) => bytes / (1024 * 1024);

function serve(): Promise<{ url: string; stop: () => void }> {
  const [cmd, args] = hearthArgv(['index', 'serve', '--dir', site, '--port', '0']);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /at (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1] as string, stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`index serve exited with ${code}`)));
  });
}

/** Sample this process's RSS while `fn` runs; returns fn's result and the peak. */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const t0 = performance.now();
  try {
    const r = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return [r, performance.now() - t0, peak];
  } finally {
    clearInterval(timer);
  }
}

let server: { url: string; stop: () => void } | undefined;
try {
  writeCatalog(recipes, COUNT, '1');
  buildIndex({ recipesDir: recipes, outDir: site, key });
  server = await serve();
  const db = openDatabase(join(dir, 'device'));
  new MigrationRegistry().add(recallsMigration, syncMigration).migrate(db);
  const store = new SyncStore(db);
  const recalls = new RecallRepo(db);
  const trusted = [publicRecord(key)];
  const url = server.url;
  const sync = () => syncIndex({ indexUrl: url, trusted, store, recalls });

  // Raw transfer for comparison: every recipe file fetched 8 at a time, no checks, nothing stored.
  const paths = Array.from({ length: COUNT }, (_, i) => `${url}/v1/recipes/syn-${String(i + 1).padStart(5, '0')}.svc.json`);
  const t0 = performance.now();
  for (let i = 0; i < paths.length; i += 8) await Promise.all(paths.slice(i, i + 8).map((p) => fetch(p).then((r) => r.arrayBuffer())));
  report(`plain GET of the ${COUNT} recipe files, 8 at a time (transfer only, for comparison)`, [performance.now() - t0], 'ms');

  const before = process.memoryUsage().rss;
  const [full, fullMs, peak] = await withPeakRss(sync);
  if (full.outcome !== 'applied') throw new Error(`full sync ${full.outcome}: ${full.reason}`);
  report(`full sync, ${full.upserted} recipes verified and applied (${full.downloaded} files)`, [fullMs], 'ms', '< 10000 ms');
  report('RSS of the syncing process before the full sync', [mb(before)], 'MiB');
  report('RSS of the syncing process at its peak during the full sync', [mb(peak)], 'MiB');
  report('RSS growth during the full sync (documents go to the store, not to memory)', [mb(peak - before)], 'MiB');

  for (let i = 1; i <= 10; i++) {
    const file = join(recipes, `syn-${String(i * 97).padStart(5, '0')}.svc.json`);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const { hash: _h, ...rest }: Record<string, unknown> = { ...doc, revision: 1000 + i };
    writeFileSync(file, JSON.stringify({ ...rest, hash: documentHash(rest) }));
  }
  buildIndex({ recipesDir: recipes, outDir: site, key });
  // The server notices a new manifest within a second and reloads its catalog (search index and all) on the
  // next request; wait for that so the figure is the device's work, not the index server's reload.
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const v = (await (await fetch(`${url}/v1/search?q=x&limit=1`)).json()) as { version?: string };
    if (v.version === '2') break;
  }
  const [inc, incMs] = await withPeakRss(sync);
  if (inc.outcome !== 'applied') throw new Error(`incremental sync ${inc.outcome}: ${inc.reason}`);
  report(`incremental sync, ${inc.upserted} recipes changed (${inc.downloaded} files downloaded)`, [incMs], 'ms');
  const [same, sameMs] = await withPeakRss(sync);
  report(`sync with nothing new (${same.outcome})`, [sameMs], 'ms');
  db.close();
} finally {
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
