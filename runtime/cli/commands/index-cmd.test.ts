// @slow: it runs `hearth index serve` as a process and builds several indexes through the CLI.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { generateKeyFile } from '../../../core/keys.js';
import { runCli, spawnCli } from '../../../test-support/cli.js';

const root = t.testdir({ out: {} });
const recipes = join(root, 'recipes');
const out = join(root, 'out');
const keyFile = join(root, 'index-key.json');
writeFileSync(
  keyFile,
  JSON.stringify(generateKeyFile({ kid: 'https://index.test#k1', actor: 'index.test', validFrom: '2026-01-01T00:00:00Z' })),
);

t.test('hearth catalog generate writes the same files for the same seed', async (t) => {
  const a = await runCli(['catalog', 'generate', '--count', '25', '--seed', 'cli', '--out', recipes]);
  t.equal(a.code, 0, a.stderr);
  t.match(a.stdout, /wrote 25 recipes/);
  const first = readdirSync(recipes).map((f) => readFileSync(join(recipes, f), 'utf8'));
  const b = await runCli(['catalog', 'generate', '--count', '25', '--seed', 'cli', '--out', join(root, 'again'), '--json']);
  t.same(JSON.parse(b.stdout), { out: join(root, 'again'), count: 25, seed: 'cli' });
  t.same(
    readdirSync(join(root, 'again')).map((f) => readFileSync(join(root, 'again', f), 'utf8')),
    first,
  );
  const bad = await runCli(['catalog', 'generate', '--count', '9000', '--seed', 'x', '--out', join(root, 'x')]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--count must be an integer from 1 to 5000/);
});

t.test('hearth index build: plain progress off a terminal, JSON result, incremental second run', async (t) => {
  const r = await runCli(['index', 'build', '--recipes', recipes, '--out', out, '--key', keyFile, '--name', 'CLI index']);
  t.equal(r.code, 0, r.stderr);
  t.notOk(r.stdout.includes('\r'), 'no bar redraws when stdout is not a terminal');
  t.match(r.stdout, /reading recipes: 25\/25\n/);
  t.match(r.stdout, /catalog version 1: 25 recipes \(25 new or changed, 0 removed\), 0 recalls/);
  const again = await runCli(['index', 'build', '--recipes', recipes, '--out', out, '--key', keyFile, '--name', 'CLI index', '--json']);
  t.equal(again.code, 0, again.stderr);
  t.match(JSON.parse(again.stdout), { version: 1, changed: false, written: 0, recipes: 25 });
  t.equal(JSON.parse(readFileSync(join(out, '.well-known/svc.json'), 'utf8')).name, 'CLI index');
});

t.test('hearth index build refuses bad input with one line and exit 2', async (t) => {
  const tampered = t.testdir({ 'bad.svc.json': '' });
  const src = readFileSync(join(recipes, 'syn-00001.svc.json'), 'utf8').replace('"revision": ', '"revision": 1');
  writeFileSync(join(tampered, 'bad.svc.json'), src);
  const r = await runCli(['index', 'build', '--recipes', tampered, '--out', join(tampered, 'out'), '--key', keyFile]);
  t.equal(r.code, 2);
  t.match(r.stderr, /^hearth: .*bad\.svc\.json: hash mismatch for recipe syn-00001/);
  t.equal(r.stderr.trim().split('\n').length, 1, 'one line, no stack trace');
  const noKey = await runCli([
    'index',
    'build',
    '--recipes',
    recipes,
    '--out',
    join(tampered, 'o2'),
    '--key',
    join(tampered, 'missing.json'),
  ]);
  t.equal(noKey.code, 2);
  t.match(noKey.stderr, /cannot read key file .*ENOENT/);
  const badUrl = await runCli([
    'index',
    'build',
    '--recipes',
    recipes,
    '--out',
    join(tampered, 'o3'),
    '--key',
    keyFile,
    '--base-url',
    'ftp://x',
  ]);
  t.equal(badUrl.code, 2);
  const noDir = await runCli(['index', 'build', '--recipes', join(tampered, 'nope'), '--out', join(tampered, 'o4'), '--key', keyFile]);
  t.equal(noDir.code, 2);
  t.match(noDir.stderr, /cannot read recipes directory/);
});

t.test('hearth index serve serves the built index; a folder that is not an index is refused', async (t) => {
  const { child, match } = await spawnCli(['index', 'serve', '--dir', out, '--port', '0'], /at (http:\/\/\S+)\n/);
  t.teardown(() => {
    child.kill('SIGTERM');
  });
  const base = match[1] as string;
  const res = await fetch(`${base}/v1/search?q=shakshuka`);
  t.equal(res.status, 200);
  t.ok(((await res.json()) as { total: number }).total >= 0);
  t.equal((await fetch(`${base}/v1/manifest.json`)).status, 200);
  const closed = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  t.equal(await closed, 0, 'exits cleanly on SIGTERM');

  const notIndex = await runCli(['index', 'serve', '--dir', recipes, '--port', '0']);
  t.equal(notIndex.code, 2);
  t.match(notIndex.stderr, /^hearth: cannot serve .*discovery document/);
  const help = await runCli(['index', 'build', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /--recipes <dir>/);
});
