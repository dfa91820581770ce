// @slow: starts PostgreSQL (npm run test:fast skips this file; npm test runs it)
/**
 * The PostgreSQL store against a real PostgreSQL (a throwaway cluster): the same search and status behaviour
 * as the SQLite store; the spec's rules refused by the database itself, whatever SQL a process sends; a
 * revision counter shared by two connections; migrations run once, by start-up and by `hearth registry migrate`.
 */
import pg from 'pg';
import t from 'tap';
import { runCli } from '../../../test-support/cli.js';
import { type PostgresCluster, postgresMissing, startPostgres } from '../../../test-support/postgres.js';
import type { RegistryEntry } from '../types.js';
import { PgRegistryStore } from './postgres-store.js';

const missing = postgresMissing();
if (missing) console.log(`# skipping the PostgreSQL store tests: ${missing}`);

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

let cluster: PostgresCluster | undefined;
let n = 0;
async function database(): Promise<string> {
  cluster ??= await startPostgres();
  return cluster.createDatabase(`store_${++n}`);
}
t.teardown(async () => cluster?.stop());

t.test('search, status and tombstones behave as on SQLite', { skip: missing ?? false }, async (t) => {
  const store = await PgRegistryStore.open(await database());
  t.teardown(() => store.close());
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
  const q = async (query: Partial<Parameters<PgRegistryStore['search']>[0]>) =>
    (await store.search({ limit: 100, ...query })).map((x) => x.name);
  t.same(await q({ q: '"100%"' }), ['org.a/x'], 'quotes and % are not query syntax');
  t.same(await q({ q: '%' }), [], 'a q without words matches nothing');
  t.same(await q({ q: 'of_' }), ['org.a/x'], 'underscore is part of a word');
  t.same(await q({ q: 'he SAID' }), ['org.a/x'], 'every word must match, in any case');
  t.same(await q({ q: 'he sung' }), [], 'every word must match');
  t.same(await q({ q: 'org.a/' }), ['org.a/z', 'org.a/y', 'org.a/x'], 'a namespace prefix');
  t.same(await q({ q: "NOT OR AND & | ! ' :*" }), [], 'tsquery operators are plain words');
  t.same(await q({ q: 'VEGAN' }), ['org.a/y'], 'tags are searched, case- and accent-insensitively');
  t.same(await q({ kind: 'device' }), ['org.a/z']);
  t.same(await q({ limit: 2 }), ['org.a/z', 'org.a/y']);
  t.equal(await store.hasVersion('org.a/y', '1.0.0'), true);

  const res = await store.setStatus({ name: 'org.a/y', status: 'deleted', at: '2026-11-21T00:00:00Z' });
  t.match(res?.changed, [{ name: 'org.a/y', status: 'deleted', 'x-status': { changedAt: '2026-11-21T00:00:00Z' } }]);
  t.equal(await store.setStatus({ name: 'org.a/nope', status: 'deleted', at: '2026-11-21T00:00:00Z' }), null);
  t.same(await q({ q: 'vegan' }), []);
  t.same(await q({ q: 'vegan', includeDeleted: true }), ['org.a/y']);
  t.same(await q({ status: 'deleted' }), ['org.a/y']);

  const recalled = await store.setStatus(
    { name: 'org.a/x', version: '1.0.0', status: 'recalled', at: '2026-11-22T00:00:00Z' },
    (c, seq) => ({
      seq,
      names: c.map((x) => x.name),
    }),
  );
  t.same(recalled?.recall, { seq: 1, doc: { seq: 1, names: ['org.a/x'] } });
  t.same(await store.recalls(0), [{ seq: 1, doc: { seq: 1, names: ['org.a/x'] } }]);
  t.equal(await store.lastRecallSeq(), 1);
  t.same(
    JSON.parse(await store.entriesJson()).map((x: RegistryEntry) => `${x.name} ${x.status}`),
    ['org.a/x recalled', 'org.a/y deleted', 'org.a/z active'],
    'the registry document lists every entry in publishing order, tombstones included',
  );

  t.equal(
    await store.putDirectoryEntry({
      kind: 'DirectoryEntry',
      id: 'd1',
      name: 'A',
      roles: [],
      country: 'EG',
      status: 'listed',
      addedAt: 'x',
    }),
    'inserted',
  );
  t.equal(
    await store.putDirectoryEntry({
      kind: 'DirectoryEntry',
      id: 'd1',
      name: 'B',
      roles: [],
      country: 'EG',
      status: 'listed',
      addedAt: 'x',
    }),
    'updated',
  );
  t.match(await store.allDirectoryEntries(), [{ id: 'd1', name: 'B' }]);
  await store.putToken({ id: 't1', hash: 'h1', namespaces: ['org.a'], admin: false, createdAt: 'now' });
  t.match(await store.tokenByHash('h1'), { id: 't1', namespaces: ['org.a'], admin: false });
  t.equal(await store.hasAdminToken(), false);
  t.equal(await store.revokeToken('t1', 'later'), true);
  t.equal(await store.tokenByHash('h1'), null);
});

t.test('the database refuses what the spec forbids, whatever SQL a process sends', { skip: missing ?? false }, async (t) => {
  const url = await database();
  const store = await PgRegistryStore.open(url);
  t.teardown(() => store.close());
  await store.insertEntry(e('org.a/x', '1.0.0'));
  await store.setStatus({ name: 'org.a/x', status: 'recalled', at: '2026-11-22T00:00:00Z' }, (_c, seq) => ({ seq }));
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  t.teardown(() => sql.end());
  const refused = async (text: string, why: RegExp, label: string) => {
    await t.rejects(sql.query(text), why, label);
  };
  await refused(
    `INSERT INTO registry_entries (name, version, namespace, kind, status, words, doc) SELECT name, version, namespace, kind, status, words, doc FROM registry_entries`,
    /registry_entries_name_version/,
    'a name and version exists once',
  );
  await refused(
    `UPDATE registry_entries SET doc = replace(doc, 'example.org/x', 'evil.example/x')`,
    /immutable/,
    'the artifact URL of a published version cannot change',
  );
  await refused(`UPDATE registry_entries SET version = '9.9.9'`, /immutable|doc_agrees/, 'nor its version');
  await refused(`UPDATE registry_entries SET status = 'active'`, /doc_agrees/, 'the status column and the document agree');
  await refused('DELETE FROM registry_entries', /never removed/, 'an entry is never removed');
  await refused('TRUNCATE registry_entries', /never removed/, 'nor truncated');
  await refused(`UPDATE registry_recalls SET doc = '{}'`, /signed recall/, 'a signed recall is never rewritten');
  await refused('DELETE FROM registry_recalls', /signed recall/, 'nor removed');
  t.match(await store.versions('org.a/x'), [{ url: 'https://example.org/x', version: '1.0.0', status: 'recalled' }], 'the entry is intact');
});

t.test('two connections share one revision; migrations run once', { skip: missing ?? false }, async (t) => {
  const url = await database();
  const a = await PgRegistryStore.open(url);
  t.teardown(() => a.close());
  t.same(a.applied, ['platform.idempotency.1', 'registry.pg.1']);
  const b = await PgRegistryStore.open(url);
  t.teardown(() => b.close());
  t.same(b.applied, [], 'a second process finds the schema in place');
  const before = await b.revision();
  await a.insertEntry(e('org.a/x', '1.0.0'));
  t.ok((await b.revision()) > before, 'a change by one process is seen by the other');
  t.equal(await b.hasVersion('org.a/x', '1.0.0'), true);
});

t.test('hearth registry migrate --db applies the schema once and says so', { skip: missing ?? false }, async (t) => {
  const url = await database();
  const first = await runCli(['registry', 'migrate', '--db', url, '--json']);
  t.equal(first.code, 0, first.stderr);
  t.same(JSON.parse(first.stdout), { store: url, applied: ['platform.idempotency.1', 'registry.pg.1'] });
  const again = await runCli(['registry', 'migrate', '--db', url]);
  t.equal(again.code, 0, again.stderr);
  t.equal(again.stdout, `${url}: schema up to date\n`);
  const bad = await runCli(['registry', 'migrate', '--db', 'mysql://x@127.0.0.1/db']);
  t.not(bad.code, 0);
  t.match(bad.stderr, /--db must be a postgres:\/\/ URL or a SQLite file/);
  t.equal(bad.stderr.trim().split('\n').length, 1, 'one readable line');
  const down = await runCli(['registry', 'migrate', '--db', `postgres://hearth:secret@127.0.0.1:1/none`]);
  t.not(down.code, 0);
  t.match(down.stderr, /cannot open the registry database postgres:\/\/hearth:\*\*\*@127\.0\.0\.1:1\/none/);
  t.notMatch(down.stderr, /secret/, 'the password is never printed');
});
