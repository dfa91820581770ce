// @slow: starts registry processes (npm run test:fast skips this file; npm test runs it)
/**
 * The newcomer walkthrough of docs/registry.md, replayed through the real CLI: start the registry, prove a
 * namespace against a local web server, publish, deprecate, recall and delete versions, and watch the
 * registry document, the tombstones and the recall feed change. Then export the static files.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { verifyDocument } from '../../core/signature.js';
import { runCli, spawnCli } from '../../test-support/cli.js';
import { sha } from './testing/fixtures.js';
import { startTestWebServer } from './testing/web-server.js';

t.test('walkthrough: serve, prove, publish, deprecate, recall, delete, export', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'registry-walk-'));
  const web = await startTestWebServer();
  t.teardown(async () => {
    await web.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const dataDir = join(dir, 'var');
  const template = `${web.base}/{domain}/.well-known/svc-verify`;
  const server = await spawnCli(
    ['registry', 'serve', '--port', '0', '--data-dir', dataDir, '--well-known-template', template],
    /registry listening on (http:\/\/\S+)/,
  );
  t.teardown(() => server.child.kill('SIGTERM'));
  const url = server.match[1] as string;
  t.match(server.output(), /admin token \(shown once; keep it secret\): svcreg_[A-Za-z0-9_-]{43}\n/);
  const env = { ...process.env, SVC_REGISTRY_URL: url };
  const cli = async (args: string[], extraEnv: Record<string, string> = {}) => {
    const r = await runCli(['registry', ...args], { env: { ...env, ...extraEnv } });
    return r;
  };
  // biome-ignore lint/suspicious/noExplicitAny: the test reads arbitrary members of the answers
  const get = async (path: string): Promise<any> => (await fetch(`${url}${path}`)).json();

  const challenge = await cli(['prove', 'example.org', '--method', 'well-known']);
  t.equal(challenge.code, 0, challenge.stderr);
  const m = /serve this token at (\S+):\n {2}(\S+)\n/.exec(challenge.stdout);
  t.ok(m, challenge.stdout);
  t.equal(m?.[1], `${web.base}/example.org/.well-known/svc-verify`);
  const early = await cli(['prove', 'example.org', '--method', 'well-known', '--check']);
  t.equal(early.code, 1, 'the token is not served yet');
  t.match(early.stderr, /^hearth: the registry answered 422: .*answered 404/);
  web.set('/example.org/.well-known/svc-verify', `${m?.[2]}\n`, 'text/plain');
  const check = await cli(['prove', 'example.org', '--method', 'well-known', '--check', '--json']);
  t.equal(check.code, 0, check.stderr);
  const token = JSON.parse(check.stdout).token as string;
  t.match(token, /^svcreg_/);
  const authed = { SVC_REGISTRY_TOKEN: token };

  for (const version of ['1.0.0', '1.1.0']) {
    const file = join(dir, `pack-${version}.json`);
    const body = {
      kind: 'rule_pack',
      name: 'org.example/pack',
      version,
      url: `https://example.org/pack-${version}.json`,
      sha256: sha(version),
    };
    writeFileSync(file, JSON.stringify(body));
    const pub = await cli(['publish', file], authed);
    t.equal(pub.code, 0, pub.stderr);
    t.equal(pub.stdout, `published org.example/pack ${version} (active)\n`);
  }
  const again = await cli(['publish', join(dir, 'pack-1.0.0.json')], authed);
  t.equal(again.code, 1);
  t.match(again.stderr, /answered 409: .*never reused/);
  const noToken = await cli(['publish', join(dir, 'pack-1.0.0.json')]);
  t.equal(noToken.code, 2, 'no token is a usage error');

  const dep = await cli(['status', 'org.example/pack@1.0.0', '--status', 'deprecated', '--message', 'Use 1.1.0'], authed);
  t.equal(dep.stdout, 'org.example/pack 1.0.0 → deprecated\n');
  const rec = await cli(['status', 'org.example/pack@1.1.0', '--status', 'recalled', '--message', 'Wrong oil limit'], authed);
  t.equal(rec.stdout, 'org.example/pack 1.1.0 → recalled\nrecall rc-000001 published in the recall feed\n');
  const del = await cli(['status', 'org.example/pack@1.0.0', '--status', 'deleted'], authed);
  t.equal(del.code, 0, del.stderr);

  const doc = await get('/v1/registry.json');
  t.same(
    doc.entries.map((e: { version: string; status: string }) => `${e.version}:${e.status}`),
    ['1.0.0:deleted', '1.1.0:recalled'],
  );
  t.same(
    (await get('/v1/registry/entries?q=pack')).map((e: { version: string }) => e.version),
    ['1.1.0'],
    'tombstone hidden',
  );
  t.same(
    (await get('/v1/registry/entries?q=pack&include_deleted=true')).map((e: { version: string }) => e.version),
    ['1.1.0', '1.0.0'],
  );
  const feed = await get('/v1/recalls.json');
  t.equal(feed.recalls.length, 1);
  t.match(feed.recalls[0], {
    id: 'rc-000001',
    entries: [{ name: 'org.example/pack', version: '1.1.0' }],
    targets: [],
    detail: 'Wrong oil limit',
  });
  t.equal(verifyDocument(feed.recalls[0], feed.keys, { kind: 'Recall' }).reason, 'ok');

  const out = join(dir, 'public');
  const exp = await runCli(['registry', 'export', '--out', out, '--data-dir', dataDir, '--base-url', 'https://registry.example.org']);
  t.equal(exp.code, 0, exp.stderr);
  const exported = JSON.parse(readFileSync(join(out, 'v1', 'registry.json'), 'utf8'));
  t.equal(exported.registry, 'https://registry.example.org');
  t.same(exported.entries, doc.entries);
  const exportedFeed = JSON.parse(readFileSync(join(out, 'v1', 'recalls.json'), 'utf8'));
  t.same(exportedFeed.recalls, feed.recalls);

  const tok = await runCli(['registry', 'token', 'create', '--namespaces', 'org.example,com.bakery', '--data-dir', dataDir, '--json']);
  t.equal(tok.code, 0, tok.stderr);
  const created = JSON.parse(tok.stdout);
  t.match(created, { token: /^svcreg_/, namespaces: ['com.bakery', 'org.example'], admin: false });
  const okCall = await fetch(`${url}/v1/registry/entries/org.example/pack/status`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${created.token}`, 'content-type': 'application/json', 'idempotency-key': 'walkthrough-1' },
    body: JSON.stringify({ status: 'deprecated', version: '1.1.0' }),
  });
  t.equal(okCall.status, 200, 'an operator-made token works');
  const revoke = await runCli(['registry', 'token', 'revoke', created.id, '--data-dir', dataDir]);
  t.equal(revoke.stdout, `revoked ${created.id}\n`);
  const after = await fetch(`${url}/v1/registry/entries/org.example/pack/status`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${created.token}`, 'content-type': 'application/json', 'idempotency-key': 'walkthrough-2' },
    body: JSON.stringify({ status: 'active', version: '1.1.0' }),
  });
  t.equal(after.status, 401, 'a revoked token is refused');
  const twice = await runCli(['registry', 'token', 'revoke', created.id, '--data-dir', dataDir]);
  t.equal(twice.code, 2);
  const badNs = await runCli(['registry', 'token', 'create', '--namespaces', 'Not Valid', '--data-dir', dataDir]);
  t.equal(badNs.code, 2);
  t.match(badNs.stderr, /^hearth: Not Valid is not a namespace/);
  const noData = await runCli(['registry', 'export', '--out', out, '--data-dir', join(dir, 'nothing-here')]);
  t.equal(noData.code, 2);
  t.match(noData.stderr, /^hearth: .*nothing-here holds no registry/);
  const badPort = await runCli(['registry', 'serve', '--port', 'abc', '--data-dir', dataDir]);
  t.equal(badPort.code, 2);
  t.equal(badPort.stderr, 'hearth: --port must be 0 to 65535, not "abc"\n');
});
