import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { RegistryEntry } from '../types.js';
import { SqliteRegistryStore } from './sqlite-store.js';

const e = (name: string, version: string, extra: Partial<RegistryEntry> = {}): RegistryEntry => ({
  kind: 'rule_pack',
  url: 'https://example.org/x',
  name,
  version,
  status: 'active',
  sha256: 'a'.repeat(64),
  publishedAt: '2026-11-20T12:00:00Z',
  ...extra,
});

t.test('entries are unique per name and version, searchable, and survive a reopen', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'registry-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'r.db');
  const store = new SqliteRegistryStore(file);
  t.equal(store.db.pragma('journal_mode', { simple: true }), 'wal');
  const rev0 = await store.revision();
  t.equal(await store.insertEntry(e('org.a/x', '1.0.0', { description: 'He said "100%" of_it' })), 'inserted');
  t.ok((await store.revision()) > rev0, 'a change bumps the revision');
  t.equal(await store.insertEntry(e('org.a/x', '1.0.0')), 'exists');
  t.equal(
    await store.insertEntries([
      e('org.a/x', '1.0.0'),
      e('org.a/y', '1.0.0', { tags: ['Végan'] }),
      e('org.a/z', '1.0.0', { kind: 'device' }),
    ]),
    2,
  );
  const q = async (query: Partial<Parameters<SqliteRegistryStore['search']>[0]>) =>
    (await store.search({ limit: 100, ...query })).map((x) => x.name);
  t.same(await q({ q: '"100%"' }), ['org.a/x'], 'quotes and % are not query syntax');
  t.same(await q({ q: '%' }), [], 'a q without words matches nothing');
  t.same(await q({ q: 'of_' }), ['org.a/x'], 'underscore is part of a word');
  t.same(await q({ q: 'he SAID' }), ['org.a/x'], 'every word must match, in any case');
  t.same(await q({ q: 'he sung' }), [], 'every word must match');
  t.same(await q({ q: 'org.a/' }), ['org.a/z', 'org.a/y', 'org.a/x'], 'a namespace prefix');
  t.same(await q({ q: 'NOT OR AND' }), [], 'FTS operators are plain words');
  t.same(await q({ q: 'VEGAN' }), ['org.a/y'], 'tags are searched, case- and accent-insensitively');
  t.same(await q({ kind: 'device' }), ['org.a/z']);
  t.same(await q({}), ['org.a/z', 'org.a/y', 'org.a/x']);
  t.same(await q({ limit: 2 }), ['org.a/z', 'org.a/y']);

  const res = await store.setStatus({ name: 'org.a/y', status: 'deleted', at: '2026-11-21T00:00:00Z' });
  t.match(res?.changed, [{ name: 'org.a/y', status: 'deleted', 'x-status': { changedAt: '2026-11-21T00:00:00Z' } }]);
  t.equal(await store.setStatus({ name: 'org.a/nope', status: 'deleted', at: '2026-11-21T00:00:00Z' }), null);
  t.same(await q({ q: 'vegan' }), []);
  t.same(await q({ q: 'vegan', includeDeleted: true }), ['org.a/y']);
  await store.close();

  const again = new SqliteRegistryStore(file);
  t.teardown(() => again.close());
  t.equal((await again.allEntries()).length, 3, 'data persists');
  t.same(JSON.parse(await again.entriesJson()), await again.allEntries(), 'entriesJson is the same list as text');
  t.equal(await again.insertEntry(e('org.a/y', '1.0.0')), 'exists', 'a tombstoned version stays taken');
  t.same(
    (await again.versions('org.a/y')).map((x) => x.status),
    ['deleted'],
  );
});

t.test('recalls are appended with the status change, in one transaction', async (t) => {
  const store = new SqliteRegistryStore(':memory:');
  t.teardown(() => store.close());
  await store.insertEntries([e('org.a/x', '1.0.0'), e('org.a/x', '2.0.0')]);
  const r = await store.setStatus({ name: 'org.a/x', status: 'recalled', at: '2026-11-21T00:00:00Z' }, (changed, seq) => ({
    seq,
    n: changed.length,
  }));
  t.same(r?.recall, { seq: 1, doc: { seq: 1, n: 2 } });
  t.equal(await store.lastRecallSeq(), 1);
  let called = 0;
  const back = await store.setStatus({ name: 'org.a/x', status: 'active', at: '2026-11-21T00:00:01Z' }, () => {
    called++;
    return {};
  });
  t.equal(back?.changed.length, 2);
  t.equal(called, 0, 'no recall for a move to active');
  await store.setStatus({ name: 'org.a/x', status: 'deprecated', version: '1.0.0', at: '2026-11-21T00:00:02Z' });
  const boom = store.setStatus({ name: 'org.a/x', status: 'recalled', version: '1.0.0', at: 'y' }, () => {
    throw new Error('signing failed');
  });
  await t.rejects(boom, /signing failed/);
  t.same(
    (await store.versions('org.a/x')).find((x) => x.version === '1.0.0')?.status,
    'deprecated',
    'a failed recall rolls the status back',
  );
  t.equal(await store.lastRecallSeq(), 1);
});

t.test('revoked tokens are not found, and a revoked admin token no longer counts', async (t) => {
  const store = new SqliteRegistryStore(':memory:');
  t.teardown(() => store.close());
  await store.putToken({ id: 't1', hash: 'h1', namespaces: [], admin: true, createdAt: '2026-11-20T12:00:00Z' });
  t.equal(await store.hasAdminToken(), true);
  t.match(await store.tokenByHash('h1'), { id: 't1', admin: true });
  t.equal(await store.revokeToken('t1', '2026-11-20T13:00:00Z'), true);
  t.equal(await store.tokenByHash('h1'), null);
  t.equal(await store.hasAdminToken(), false);
  t.equal(await store.revokeToken('t1', '2026-11-20T14:00:00Z'), false, 'only once');
  t.equal(await store.revokeToken('nope', '2026-11-20T14:00:00Z'), false);
});

t.test('the SQLite file itself refuses to rewrite or remove a published entry or a recall', async (t) => {
  const store = new SqliteRegistryStore(':memory:');
  t.teardown(() => store.close());
  await store.insertEntry(e('org.a/x', '1.0.0'));
  await store.setStatus({ name: 'org.a/x', status: 'recalled', at: '2026-11-22T00:00:00Z' }, (_c, seq) => ({ seq }));
  const refused = (sql: string, why: RegExp, label: string) => t.throws(() => store.db.exec(sql), why, label);
  refused(
    `UPDATE registry_entries SET doc = replace(doc, 'example.org/x', 'evil.example/x')`,
    /immutable/,
    'the artifact URL cannot change',
  );
  refused(`UPDATE registry_entries SET version = '9.9.9'`, /immutable/, 'nor the version');
  refused('DELETE FROM registry_entries', /never removed/, 'an entry is never removed');
  refused(`UPDATE registry_recalls SET doc = '{}'`, /signed recall/, 'a signed recall is never rewritten');
  refused('DELETE FROM registry_recalls', /signed recall/, 'nor removed');
  t.match(await store.versions('org.a/x'), [{ url: 'https://example.org/x', status: 'recalled' }]);
  const back = await store.setStatus({ name: 'org.a/x', status: 'active', at: '2026-11-23T00:00:00Z' });
  t.equal(back?.changed.length, 1, 'a status change is still allowed');
});
