import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runDirectory } from './runner.js';
import { isVector, loadVectorFiles } from './vectors.js';

const vec = (id: string, expected: unknown) => ({ id, kind: 'registry_version', description: 'd', input: { version: '1.0.0' }, expected });

t.test('reads vector arrays recursively and skips other JSON', async (t) => {
  const dir = t.testdir({
    'a.json': JSON.stringify([vec('a-1', { exact: true, reason: 'ok' })]),
    sub: { deeper: { 'b.json': JSON.stringify([vec('b-1', { exact: false, reason: 'ok' })]) } },
    keys: { 'test-keys.json': JSON.stringify([{ kid: 'k', alg: 'EdDSA', publicKey: 'x' }]) },
    'notes.json': JSON.stringify({ note: 'not vectors' }),
    'readme.md': '# not json',
  });
  const { files, problems } = loadVectorFiles(dir);
  t.same(
    files.map((f) => f.file),
    ['a.json', 'sub/deeper/b.json'],
  );
  t.same(problems, []);
  const out = runDirectory(dir);
  t.equal(out.passed, 1);
  t.equal(out.failed, 1);
  t.same(
    out.results.map((r) => [r.id, r.passed, r.file]),
    [
      ['a-1', true, 'a.json'],
      ['b-1', false, 'sub/deeper/b.json'],
    ],
  );
});

t.test('a broken or mixed vector file is a failure, not a skip', async (t) => {
  const dir = t.testdir({
    'bad.json': '[{"id":"x","kind":"hash","input":{},"expected":{},"id":"y"}]',
    'mixed.json': JSON.stringify([vec('m-1', {}), { hello: 1 }]),
  });
  const { files, problems } = loadVectorFiles(dir);
  t.same(files, []);
  t.match(problems, [
    { file: 'bad.json', message: /duplicate key "id"/ },
    { file: 'mixed.json', message: /entry 1 is not a vector/ },
  ]);
  t.equal(runDirectory(dir).failed, 2);
});

t.test('isVector', async (t) => {
  t.ok(isVector(vec('a', {})));
  t.ok(isVector({ id: 'a', kind: 'k', input: null, expected: null }));
  t.notOk(isVector({ id: 'a', kind: 'k', input: {} }));
  t.notOk(isVector({ id: 1, kind: 'k', input: {}, expected: {} }));
  t.notOk(isVector([]));
});

t.test('empty directories have no vectors', async (t) => {
  const dir = t.testdir({});
  mkdirSync(join(dir, 'empty'));
  writeFileSync(join(dir, 'empty', 'x.txt'), 'x');
  t.same(loadVectorFiles(dir), { files: [], problems: [] });
});
