// @slow: runs the CLI over every vector kind (npm run test:fast skips this file; npm test runs it)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parseJson } from '../core/canonical.js';
import { generateKeyFile, publicRecord } from '../core/keys.js';
import { verifyDocument } from '../core/signature.js';
import { runCli } from '../test-support/cli.js';
import { hasShared, referenceDir } from '../test-support/shared.js';

const vec = (id: string, version: string, exact: boolean, reason: string) => ({
  id,
  kind: 'registry_version',
  description: 'd',
  input: { version },
  expected: { exact, reason },
});

t.test('--help', async (t) => {
  const r = await runCli(['conformance', '--help']);
  t.equal(r.code, 0);
  for (const opt of ['--vectors', '--json', '--report', '--key']) t.match(r.stdout, opt);
});

t.test('one line per vector, a closing count, exit 1 on a failure', async (t) => {
  const dir = t.testdir({ 'v.json': JSON.stringify([vec('good', '1.0.0', true, 'ok'), vec('bad', '1.0', true, 'ok')]) });
  const r = await runCli(['conformance', '--vectors', dir]);
  t.equal(r.code, 1);
  t.same(r.stdout.trim().split('\n'), [
    'ok good',
    'FAIL bad: expected {"exact":true,"reason":"ok"} got {"exact":false,"reason":"not_semver"}',
    '1 passed, 1 failed',
  ]);
});

t.test('--json, and a signed --report', async (t) => {
  const dir = t.testdir({ 'v.json': JSON.stringify([vec('good', '1.0.0', true, 'ok')]) });
  const key = generateKeyFile({ kid: 'did:web:lab.example#k1', actor: 'lab', validFrom: '2026-01-01T00:00:00Z' });
  const keyPath = join(dir, 'key.json');
  writeFileSync(keyPath, JSON.stringify(key));
  const reportPath = join(dir, 'report.json');
  const r = await runCli(['conformance', '--vectors', dir, '--json', '--report', reportPath, '--key', keyPath]);
  t.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { passed: number; failed: number; results: { id: string; passed: boolean }[] };
  t.same([out.passed, out.failed, out.results.map((x) => x.id)], [1, 0, ['good']]);
  const report = parseJson(readFileSync(reportPath, 'utf8')) as Record<string, unknown>;
  t.equal(report.kind, 'ConformanceReport');
  t.match(report.tool, { name: 'hearth', version: /^\d+\.\d+\.\d+/ });
  t.match(report.environment, { node: process.version, platform: process.platform });
  t.equal(verifyDocument(report, [publicRecord(key)]).reason, 'ok');
});

t.test('bad input: one line on stderr, exit 2', async (t) => {
  const dir = t.testdir({
    'only-keys': { 'keys.json': '[{"kid":"k"}]' },
    'bad-key.json': '{"kid":"k"}',
    'v.json': JSON.stringify([vec('good', '1.0.0', true, 'ok')]),
  });
  const cases: [string[], RegExp][] = [
    [['conformance', '--vectors', join(dir, 'missing')], /does not exist/],
    [['conformance', '--vectors', join(dir, 'v.json')], /is not a directory/],
    [['conformance', '--vectors', join(dir, 'only-keys')], /no vector files found/],
    [['conformance', '--vectors', dir, '--report', join(dir, 'r.json')], /--report needs --key/],
    [['conformance', '--vectors', dir, '--report', join(dir, 'r.json'), '--key', join(dir, 'bad-key.json')], /bad-key\.json: key file/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, re);
    t.equal(r.stderr.trim().split('\n').length, 1, 'one line');
    t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

if (hasShared) {
  t.test('by default the public vectors beside the repository run, and all pass', async (t) => {
    const r = await runCli(['conformance']);
    t.equal(
      r.code,
      0,
      r.stdout
        .split('\n')
        .filter((l) => l.startsWith('FAIL'))
        .join('\n'),
    );
    t.match(r.stdout, /\n100 passed, 0 failed\n$/);
    t.ok(referenceDir.length > 0);
  });
}
