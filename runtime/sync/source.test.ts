import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { documentHash } from '../../core/hash.js';
import { MigrationRegistry } from '../../platform/sqlite/migrations.js';
import { openDatabase } from '../store/db.js';
import { syncProgress } from './progress.js';
import { SyncedRecipes } from './source.js';
import { SyncStore, syncMigration } from './store.js';

function recipe(id: string, title: string): { id: string; hash: string; doc: string } {
  const doc = { svc: '0.2.0', id, title: { en: title }, process: { nodes: [] } };
  const hash = documentHash(doc);
  return { id, hash, doc: JSON.stringify({ ...doc, hash }) };
}

function put(store: SyncStore, url: string, version: string, docs: ReturnType<typeof recipe>[]): void {
  for (const d of docs) store.stage({ fileHash: `sha256:${url}${d.id}${d.hash}`, kind: 'recipe', id: d.id, hash: d.hash, doc: d.doc });
  store.apply({
    url,
    version,
    manifestHash: `sha256:${version}`,
    generatedAt: null,
    upserts: docs.map((d) => ({ fileHash: `sha256:${url}${d.id}${d.hash}`, kind: 'recipe' as const, id: d.id, hash: d.hash })),
    removals: [],
    recalls: [],
    addRecall: () => {},
    summary: {},
  });
}

t.test('synced recipes: the first configured index wins; another process’s commit is seen', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-sync-source-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const hub = openDatabase(dir);
  const other = openDatabase(dir);
  t.teardown(() => {
    hub.close();
    other.close();
  });
  new MigrationRegistry().add(syncMigration).migrate(hub);
  const store = new SyncStore(hub);
  const source = new SyncedRecipes(store, ['http://b.test', 'http://a.test']);
  const a = recipe('dish', 'from a');
  const b = recipe('dish', 'from b');
  put(store, 'http://a.test', '1', [a]);
  t.equal(source.get('dish')?.hash, a.hash);
  put(store, 'http://b.test', '1', [b, recipe('only-b', 'b')]);
  t.equal(source.get('dish')?.hash, b.hash, 'b is configured first');
  t.equal(source.list().length, 2);
  t.same(source.get('dish')?.doc.title, { en: 'from b' });

  // A one-shot `hearth sync` (another connection) applies: the hub's source sees it without being told.
  put(new SyncStore(other), 'http://a.test', '2', [recipe('late', 'arrived later')]);
  t.equal(source.get('late')?.id, 'late');
});

t.test('the progress bar draws only on a terminal', async (t) => {
  const out: string[] = [];
  const tty = syncProgress({ isTTY: true, columns: 80, write: (s) => out.push(s) }, () => 0);
  tty.onProgress('x', { phase: 'recipes', done: 5, total: 10 });
  tty.onProgress('x', { phase: 'recipes', done: 10, total: 10 });
  tty.done();
  t.match(out.join(''), /\[#+\.*\]\s+50% recipes 5\/10/);
  t.match(out.join(''), /100% recipes 10\/10\n$/);
  const pipe: string[] = [];
  const plain = syncProgress({ isTTY: false, write: (s) => pipe.push(s) });
  plain.onProgress('x', { phase: 'recipes', done: 10, total: 10 });
  plain.done();
  t.same(pipe, []);
});
