// @slow: serves an index with another web server (npm run test:fast skips this file; npm test runs it)
/**
 * The built index is plain files: served by a web server that is not Hearth (python3's http.server, which knows
 * nothing of svc), a hub syncs from it exactly as from `hearth index serve`: the recipes arrive, a recall
 * published by a rebuild is applied and blocks the recipe, and a file changed on the host after signing is
 * refused (the hub keeps what it had). docs/index.md, "Hosting the index anywhere".
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { editRecipe } from '../../services/index/test-helpers.js';
import { repoRoot, runCli, spawnCli } from '../../test-support/cli.js';

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** `python3 -m http.server` on a free loopback port, serving `dir`; resolves with its URL. */
function pythonHttpServer(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`python3 http.server did not start:\n${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /Serving HTTP on \S+ port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${m[1]}`, child });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run python3 (Debian package python3): ${err.message}`));
    });
  });
}

t.test('a hub syncs from an index served by python3 http.server', async (t) => {
  const dir = t.testdir();
  const p = (...x: string[]) => join(dir, ...x);
  mkdirSync(p('no-recipes'));
  mkdirSync(p('recalls'));
  cpSync(join(repoRoot, 'examples/recipes'), p('recipes'), { recursive: true });

  const keygen = await runCli(['keygen', '--kid', 'https://index.example#k1', '--actor', 'index.example', '--out', p('index-key.json')]);
  t.equal(keygen.code, 0, keygen.stderr);
  writeFileSync(p('trust.json'), keygen.stdout);
  const build = (...extra: string[]) =>
    runCli([
      'index',
      'build',
      '--recipes',
      p('recipes'),
      '--out',
      p('site'),
      '--key',
      p('index-key.json'),
      '--recalls',
      p('recalls'),
      ...extra,
    ]);
  const first = await build();
  t.equal(first.code, 0, first.stderr);

  const web = await pythonHttpServer(p('site'));
  t.teardown(() => stop(web.child));
  const probe = await fetch(`${web.url}/v1/manifest.json`);
  t.match(probe.headers.get('server'), /^SimpleHTTP\//, 'the files come from python, not from Hearth');
  await probe.arrayBuffer();

  const hub = await spawnCli(
    [
      'start',
      '--data-dir',
      p('hub'),
      '--http-port',
      '0',
      '--recipes',
      p('no-recipes'),
      '--index',
      web.url,
      '--trust',
      p('trust.json'),
      '--log-level',
      'warn',
    ],
    /hearth ready (http:\/\/\S+)/,
    { timeoutMs: 60_000 },
  );
  t.teardown(() => stop(hub.child));
  const hubUrl = hub.match[1] as string;
  const token = (await runCli(['token', 'create', '--scopes', 'read,cook,admin', '--name', 'ops', '--data-dir', p('hub')])).stdout.trim();
  const auth = { authorization: `Bearer ${token}` };
  type Status = { indexes: { version: string | null; recipes: number; recalls: string[] }[] };
  const status = async () => (await (await fetch(`${hubUrl}/svc/v1/sync`, { headers: auth })).json()) as Status;
  let keys = 0;
  const syncNow = async () => {
    const r = await fetch(`${hubUrl}/svc/v1/sync`, { method: 'POST', headers: { ...auth, 'idempotency-key': `plain-host-${++keys}-x` } });
    t.equal(r.status, 200);
    return ((await r.json()) as { results: { outcome: string; to: string | null; reason?: string; newRecalls: number }[] }).results[0];
  };

  let s: Status | undefined;
  for (let i = 0; i < 300 && s?.indexes[0]?.version !== '1'; i++) {
    s = await status();
    if (s.indexes[0]?.version !== '1') await new Promise((r) => setTimeout(r, 200));
  }
  t.equal(s?.indexes[0]?.version, '1', 'the first scheduled sync applied the index');
  t.equal(s?.indexes[0]?.recipes, 3, 'the three example recipes arrived from the plain web server');

  // A recall: signed, put in the recalls folder, index rebuilt; the plain files change, the hub applies it.
  writeFileSync(
    p('recall.json'),
    JSON.stringify({
      core: '0.2.0',
      kind: 'Recall',
      id: 'rc-2026-11-007',
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
    p('recalls/rc-2026-11-007.json'),
  ]);
  t.equal(sign.code, 0, sign.stderr);
  t.equal((await build()).code, 0);
  t.match(await syncNow(), { outcome: 'applied', to: '2', newRecalls: 1 });
  const hash = (await runCli(['hash', p('recipes/koshari.svc.json')])).stdout.trim();
  const run = await fetch(`${hubUrl}/v1/executions`, {
    method: 'POST',
    headers: { ...auth, 'idempotency-key': 'plain-host-run-1', 'content-type': 'application/json' },
    body: JSON.stringify({
      core: '0.2.0',
      kind: 'ExecuteRequest',
      id: 'req-1',
      recipe: 'example-koshari',
      recipeHash: hash,
      requestedBy: 'household:demo',
      idempotencyKey: 'plain-host-run-1',
    }),
  });
  t.equal(run.status, 202);
  t.match(
    await run.json(),
    { state: 'refused', refusal: { reason: 'recipe_recalled', detail: /rc-2026-11-007/ } },
    'the recall blocks the recipe',
  );

  // A recipe changes (version 3), then its file is altered on the host after signing: refused, version 2 kept.
  editRecipe(p('recipes/shakshuka.svc.json'), (d) => {
    d.revision = 77;
  });
  t.equal((await build()).code, 0);
  const served = p('site/v1/recipes/example-shakshuka.svc.json');
  const doc = JSON.parse(readFileSync(served, 'utf8')) as Record<string, unknown>;
  doc.servings = 99;
  writeFileSync(served, JSON.stringify(doc));
  t.match(await syncNow(), { outcome: 'rejected', to: '2', reason: 'shard hash mismatch for /v1/recipes/example-shakshuka.svc.json' });

  // The manifest itself altered on the host (its signature no longer matches): refused too.
  const manifestFile = p('site/v1/manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
  manifest.version = '9';
  writeFileSync(manifestFile, JSON.stringify(manifest));
  t.match(await syncNow(), { outcome: 'rejected', to: '2', reason: 'manifest bad_signature' });
  const after = await status();
  t.equal(after.indexes[0]?.version, '2', 'the hub keeps the last good version');
  t.equal(after.indexes[0]?.recipes, 3);
});
