// @slow: starts PostgreSQL and registry processes (npm run test:fast skips this file; npm test runs it)
/**
 * Two registry processes (`hearth registry serve --db postgres://…`, real child processes) started together on
 * one empty PostgreSQL database (the schema is migrated once).
 * Both publish the same name and version at the same moment, round after round: each time exactly one wins
 * (201) and the other gets the documented conflict (409 problem document), because the database holds the
 * rule, not either process. Afterwards each process serves the other's entries (a shared revision).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { hearthArgv, repoRoot } from '../../test-support/cli.js';
import { postgresMissing, startPostgres } from '../../test-support/postgres.js';
import { issueToken } from './proof/namespaces.js';
import { PgRegistryStore } from './store/postgres-store.js';

const missing = postgresMissing();
if (missing) console.log(`# skipping the two-process registry test: ${missing}`);

function serve(db: string, dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const [cmd, args] = hearthArgv(['registry', 'serve', '--db', db, '--data-dir', dataDir, '--port', '0']);
  const child = spawn(cmd, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`registry did not start:\n${out}\n${err}`)), 60_000);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /registry listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ url: m[1], child });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`registry exited with ${code}:\n${out}\n${err}`));
    });
  });
}

t.test('two registry processes on one database never publish a version twice', { skip: missing ?? false }, async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  const db = await pg.createDatabase('race');
  const dataDir = mkdtempSync(join(tmpdir(), 'registry-race-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

  // Started together on an empty database: the migrations run once, under the advisory lock.
  const keyDir = (n: string) => join(dataDir, n);
  const [a, b] = await Promise.all([serve(db, keyDir('a')), serve(db, keyDir('b'))]);
  t.teardown(() => a.child.kill('SIGTERM'));
  t.teardown(() => b.child.kill('SIGTERM'));

  const store = await PgRegistryStore.open(db);
  t.teardown(() => store.close());
  t.same(store.applied, [], 'the two processes left nothing to migrate');
  const ids = (await store.pool.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id')).rows.map((r) => r.id);
  t.same(ids, ['platform.idempotency.1', 'registry.pg.1'], 'each migration recorded once');
  await store.recordProof({ namespace: 'org.example', method: 'dns_txt', verifiedAt: '2026-11-20T12:00:00Z' });
  const { token } = await issueToken(store, ['org.example'], false, new Date());

  const publish = (base: string, version: string, key: string) =>
    fetch(`${base}/v1/registry/publish`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': key },
      body: JSON.stringify({
        kind: 'rule_pack',
        name: 'org.example/pack',
        version,
        url: `https://example.org/${version}`,
        sha256: 'b'.repeat(64),
      }),
    }).then(async (r) => ({
      status: r.status,
      type: r.headers.get('content-type') ?? '',
      body: (await r.json()) as Record<string, unknown>,
    }));

  const rounds = 12;
  for (let i = 0; i < rounds; i++) {
    const version = `1.0.${i}`;
    const answers = await Promise.all([publish(a.url, version, `key-a-${i}-xxxx`), publish(b.url, version, `key-b-${i}-xxxx`)]);
    const statuses = answers.map((x) => x.status).sort();
    t.same(statuses, [201, 409], `round ${i}: one process wins, the other gets the conflict`);
    const lost = answers.find((x) => x.status === 409);
    t.match(lost, { type: /^application\/problem\+json/, body: { title: String, detail: /already exists/ } });
  }
  const versions = await store.versions('org.example/pack');
  t.equal(versions.length, rounds, 'each version is stored once');

  for (const p of [a, b]) {
    const doc = (await (await fetch(`${p.url}/v1/registry.json`)).json()) as { entries: { version: string }[] };
    t.equal(doc.entries.length, rounds, 'each process serves every entry, whichever process published it');
  }
});
