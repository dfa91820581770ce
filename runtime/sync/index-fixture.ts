/**
 * A local index for sync's tests and for the HIL scenarios that exercise recalls (runtime/hil/stack.ts, runner.ts,
 * so it ships in the bundle): a built index served on 127.0.0.1 port 0 behind a counting proxy that
 * can drop a connection midway, a device-side store in memory, and a way to re-sign a tampered manifest (an
 * index whose signing pipeline published bad content).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sha256Hex } from '../../core/hash.js';
import { generateKeyFile, type KeyFile, publicRecord } from '../../core/keys.js';
import { signDocument } from '../../core/signature.js';
import { MigrationRegistry } from '../../platform/sqlite/migrations.js';
import { writeCatalog } from '../../services/catalog/generate.js';
import { type BuildResult, buildIndex } from '../../services/index/build/build.js';
import { createIndexServer } from '../../services/index/serve/server.js';
import { RecallRepo, recallsMigration } from '../store/recalls.js';
import { SyncStore, syncMigration } from './store.js';

export const NOW = () => new Date('2026-11-20T12:00:00Z');

export function key(kid = 'https://index.test#k1'): KeyFile {
  return generateKeyFile({ kid, actor: 'index.test', validFrom: '2026-01-01T00:00:00Z' });
}

export interface Fault {
  /** Drop the connection of the n-th (1-based) request whose path matches, and every later one. */
  dropFrom?: number;
  match?: RegExp;
}

export interface IndexFixture {
  recipesDir: string;
  recallsDir: string;
  siteDir: string;
  key: KeyFile;
  /** A trust file holding the index key's public record. */
  trustFile: string;
  /** The proxy's URL (what devices sync from). */
  url: string;
  /** Paths the proxy saw (query stripped), in order. */
  requests: string[];
  fault: Fault;
  build(opts?: { trust?: KeyFile[] }): BuildResult;
  stopServer(): Promise<void>;
  close(): Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** Build an index of `count` synthetic recipes (plus `extra` files) in `dir` and serve it behind a proxy. */
export async function indexFixture(dir: string, opts: { count?: number; seed?: string; extra?: string[] } = {}): Promise<IndexFixture> {
  const recipesDir = join(dir, 'recipes');
  const recallsDir = join(dir, 'recalls');
  const siteDir = join(dir, 'site');
  writeCatalog(recipesDir, opts.count ?? 12, opts.seed ?? 'sync');
  for (const f of opts.extra ?? []) writeFileSync(join(recipesDir, f.split('/').pop() as string), readFileSync(f));
  mkdirSync(recallsDir, { recursive: true });
  const k = key();
  const trustFile = join(dir, 'trust.json');
  writeFileSync(trustFile, JSON.stringify([publicRecord(k)]));
  const build = (b: { trust?: KeyFile[] } = {}) =>
    buildIndex({ recipesDir, outDir: siteDir, key: k, recallsDir, trust: (b.trust ?? []).map(publicRecord), now: NOW });
  build();
  const index = createIndexServer({ dir: siteDir });
  await index.app.listen({ port: 0, host: '127.0.0.1' });
  const target = (index.app.server.address() as AddressInfo).port;
  const requests: string[] = [];
  const fault: Fault = {};
  let matched = 0;
  let serverUp = true;
  const proxy = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    requests.push(path);
    if (fault.dropFrom !== undefined && (fault.match ?? /./).test(path) && ++matched >= fault.dropFrom) {
      // Answer headers and the start of a body, then cut the connection. No content-length: a declared length
      // above the shard's size would be refused for its size as soon as the headers arrive, which raced the cut.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"');
      setImmediate(() => res.socket?.destroy());
      return;
    }
    if (!serverUp) {
      req.socket.destroy();
      return;
    }
    const up = request({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.socket?.destroy());
    req.pipe(up);
  });
  const port = await listen(proxy);
  return {
    recipesDir,
    recallsDir,
    siteDir,
    key: k,
    trustFile,
    url: `http://127.0.0.1:${port}`,
    requests,
    fault,
    build,
    async stopServer() {
      if (!serverUp) return;
      serverUp = false;
      await index.app.close();
    },
    async close() {
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
      if (serverUp) await index.app.close();
    },
  };
}

/** Re-sign the site's manifest with `k` after files under it changed (shards recomputed from disk, `drop` left out). */
export function resignManifest(siteDir: string, k: KeyFile, drop: (path: string) => boolean = () => false): void {
  const file = join(siteDir, 'v1/manifest.json');
  const m = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { shards: { path: string; hash: string; bytes: number }[] };
  const shards = m.shards
    .filter((s) => !drop(s.path))
    .map((s) => {
      const data = readFileSync(join(siteDir, s.path));
      return { path: s.path, hash: `sha256:${sha256Hex(data)}`, bytes: data.byteLength };
    });
  const { signature: _s, hash: _h, ...rest } = m;
  const { hash: _h2, ...signed } = signDocument({ ...rest, shards }, k, { kind: 'Manifest', signedAt: '2026-11-20T12:00:00Z' });
  writeFileSync(file, `${JSON.stringify(signed)}\n`);
}

/** A device-side store in memory with the recalls and sync tables. */
export function deviceStore(): { db: Database.Database; store: SyncStore; recalls: RecallRepo } {
  const db = new Database(':memory:');
  new MigrationRegistry().add(recallsMigration, syncMigration).migrate(db);
  return { db, store: new SyncStore(db), recalls: new RecallRepo(db) };
}

/** Recipe paths requested. */
export function recipeRequests(requests: readonly string[]): string[] {
  return requests.filter((p) => p.startsWith('/v1/recipes/'));
}

/** Sign a Recall of `recipeId` (every revision, or one `hash`) with `k` into the fixture's recalls folder. */
export function publishRecall(
  f: IndexFixture,
  id: string,
  recipeId: string,
  opts: { by?: KeyFile; hash?: string; action?: string } = {},
): void {
  const target = opts.hash ? { ref: recipeId, hash: opts.hash } : { ref: recipeId, allRevisions: true };
  const doc = {
    core: '0.2.0',
    kind: 'Recall',
    id,
    issuedAt: '2026-11-20T11:00:00Z',
    issuer: 'index.test',
    targets: [target],
    severity: 'high',
    reason: 'food_safety',
    ...(opts.action ? { action: opts.action } : {}),
    detail: 'test recall',
  };
  const signed = signDocument(doc, opts.by ?? f.key, { signedAt: '2026-11-20T11:00:00Z' });
  writeFileSync(join(f.recallsDir, `${id}.json`), JSON.stringify(signed));
}
