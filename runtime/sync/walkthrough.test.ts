// @slow: builds and serves indexes, starts hubs (npm run test:fast skips this file; npm test runs it)
/**
 * docs/sync.md replayed over real HTTP through the CLI: an index built from examples/recipes with a new key
 * and served on port 0, a hub started with --index/--trust on port 0 and no recipes of its own, the recipes
 * arriving, a recall signed and published, a sync on demand, and the hub refusing the recipe with the index
 * stopped. Then the one-shot `hearth sync`.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { repoRoot, runCli, spawnCli, tolerantRigFile } from '../../test-support/cli.js';

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

t.test('docs/sync.md walkthrough', async (t) => {
  const dir = t.testdir();
  const p = (...x: string[]) => join(dir, ...x);
  mkdirSync(p('no-recipes'));
  mkdirSync(p('recalls'));
  const examples = join(repoRoot, 'examples/recipes');

  const keygen = await runCli(['keygen', '--kid', 'https://index.example#k1', '--actor', 'index.example', '--out', p('index-key.json')]);
  t.equal(keygen.code, 0, keygen.stderr);
  writeFileSync(p('trust.json'), keygen.stdout);
  const build = await runCli(['index', 'build', '--recipes', examples, '--out', p('site'), '--key', p('index-key.json')]);
  t.equal(build.code, 0, build.stderr);

  const index = await spawnCli(['index', 'serve', '--dir', p('site'), '--port', '0'], /at (http:\/\/127\.0\.0\.1:\d+)/);
  t.teardown(() => stop(index.child));
  const indexUrl = index.match[1] as string;
  const hub = await spawnCli(
    [
      'start',
      '--data-dir',
      p('hub'),
      '--rig', // a minute of stall tolerance: a loaded machine must not latch a safety stop mid-cook
      tolerantRigFile(p('.')),
      '--http-port',
      '0',
      '--recipes',
      p('no-recipes'),
      '--index',
      indexUrl,
      '--trust',
      p('trust.json'),
      '--log-level',
      'warn',
    ],
    /hearth ready (http:\/\/\S+)/,
  );
  t.teardown(() => stop(hub.child));
  const hubUrl = hub.match[1] as string;
  const token = (await runCli(['token', 'create', '--scopes', 'read,cook,admin', '--name', 'ops', '--data-dir', p('hub')])).stdout.trim();
  const auth = { authorization: `Bearer ${token}` };

  // The recipes arrive with the first scheduled sync.
  let status: { indexes: { version: string | null; recipes: number; recalls: string[] }[] } | undefined;
  for (let i = 0; i < 100; i++) {
    status = (await (await fetch(`${hubUrl}/svc/v1/sync`, { headers: auth })).json()) as typeof status;
    if (status?.indexes[0]?.version === '1') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  t.equal(status?.indexes[0]?.version, '1', 'first sync applied');
  t.equal(status?.indexes[0]?.recipes, 3, 'the three example recipes arrived');

  // Publish a recall and sync on demand.
  writeFileSync(
    p('recall.json'),
    JSON.stringify({
      core: '0.2.0',
      kind: 'Recall',
      id: 'rc-2026-11-001',
      issuedAt: '2026-11-20T10:00:00Z',
      issuer: 'index.example',
      targets: [{ ref: 'example-koshari', allRevisions: true }],
      severity: 'high',
      reason: 'food_safety',
      action: 'block',
      detail: 'Re-check the frying step.',
    }),
  );
  const sign = await runCli([
    'sign',
    p('recall.json'),
    '--key',
    p('index-key.json'),
    '--kind',
    'Recall',
    '--out',
    p('recalls/rc-2026-11-001.json'),
  ]);
  t.equal(sign.code, 0, sign.stderr);
  const rebuild = await runCli([
    'index',
    'build',
    '--recipes',
    examples,
    '--out',
    p('site'),
    '--key',
    p('index-key.json'),
    '--recalls',
    p('recalls'),
  ]);
  t.equal(rebuild.code, 0, rebuild.stderr);
  const now = await fetch(`${hubUrl}/svc/v1/sync`, { method: 'POST', headers: { ...auth, 'idempotency-key': 'sync-walkthrough-1' } });
  t.equal(now.status, 200);
  const body = (await now.json()) as { results: { outcome: string; to: string; newRecalls: number }[]; summary: string[] };
  t.equal(body.results[0]?.outcome, 'applied');
  t.equal(body.results[0]?.to, '2');
  t.equal(body.results[0]?.newRecalls, 1);
  t.match(body.summary[0], /version 1 → 2, 0 upserted, 0 removed, 1 recall \(1 new\)/);

  // The one-shot CLI against another data dir, while the index is up.
  const once = await runCli(['sync', '--index', indexUrl, '--trust', p('trust.json'), '--data-dir', p('other')]);
  t.equal(once.code, 0, once.stderr);
  t.match(once.stdout, /version none → 2, 3 upserted, 0 removed, 1 recall \(1 new\)/);
  const json = await runCli(['sync', '--index', indexUrl, '--trust', p('trust.json'), '--data-dir', p('other'), '--json']);
  t.equal(JSON.parse(json.stdout).results[0].outcome, 'unchanged');

  // The index goes away; the hub still refuses the recalled recipe.
  await stop(index.child);
  const hash = (await runCli(['hash', join(examples, 'koshari.svc.json')])).stdout.trim();
  const key = 'run-walkthrough-1';
  const run = await fetch(`${hubUrl}/v1/executions`, {
    method: 'POST',
    headers: { ...auth, 'idempotency-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      core: '0.2.0',
      kind: 'ExecuteRequest',
      id: 'req-1',
      recipe: 'example-koshari',
      recipeHash: hash,
      requestedBy: 'household:demo',
      idempotencyKey: key,
    }),
  });
  t.equal(run.status, 202);
  const refused = (await run.json()) as { state: string; refusal?: { reason: string; detail: string } };
  t.equal(refused.state, 'refused');
  t.equal(refused.refusal?.reason, 'recipe_recalled');
  t.match(refused.refusal?.detail, /rc-2026-11-001/);

  const offline = await runCli(['sync', '--index', indexUrl, '--trust', p('trust.json'), '--data-dir', p('other'), '--timeout', '3']);
  t.equal(offline.code, 1, 'an unreachable index exits 1');
  t.match(offline.stdout, /failed: GET .*ECONNREFUSED; kept version 2/);
});

t.test('hearth sync: help, and bad options are one line with exit 2', async (t) => {
  const help = await runCli(['sync', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /--index <url>/);
  t.match(help.stdout, /--trust <file>/);
  const dir = t.testdir({ 'bad.json': '{"kid":1}' });
  for (const [args, re] of [
    [['sync', '--index', 'ftp://x', '--trust', join(dir, 'bad.json')], /--index: index URL ftp:\/\/x must be http or https/],
    [['sync', '--index', 'http://127.0.0.1:9', '--trust', join(dir, 'none.json')], /trust file .*none\.json: cannot read \(ENOENT\)/],
    [['sync', '--index', 'http://127.0.0.1:9', '--trust', join(dir, 'bad.json')], /trust file .*bad\.json: key record 1/],
  ] as const) {
    const r = await runCli([...args]);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, re);
    t.equal(r.stderr.trim().split('\n').length, 1, 'one line');
  }
});
