/**
 * The program files of a release (scripts/release-stage.mjs `copyProgram`), over a small checkout of its own: what
 * package.json's "files" names, the docs, the installer at the top, and no V8 code cache of this machine, whatever
 * its name. The whole release, cross-built and run under qemu, is scripts/release.test.ts (@slow).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { scratchFiles } from '../test-support/cli.js';
import { copyProgram } from './release-stage.mjs';

t.test('copyProgram leaves every code cache of the bundle out of the release, and keeps the bundle', async (t) => {
  const { dir } = scratchFiles(t, 'hearth-release-stage-');
  const root = join(dir, 'checkout');
  const stage = join(dir, 'stage');
  const put = (rel: string, text = rel) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  put('package.json', JSON.stringify({ name: 'hearth', files: ['bin', 'dist', 'systemd', 'README.md'] }));
  for (const f of [
    'bin/hearth.mjs',
    'systemd/install.sh',
    'systemd/hearth.service',
    'README.md',
    'LICENSE',
    'docs/recipe-api.md',
    'dist/runtime/cli/run.js',
    'dist/bundle/hearth.cjs',
    'dist/bundle/hearth.mjs',
    'dist/bundle/hearth.cjs.cache',
    'dist/bundle/hearth.cjs.recipe-api.cache',
    'dist/bundle/hearth.cjs.some-later-command.cache',
    'dist/bundle/hearth.cjs.cache.1234.tmp',
    'dist/test-support/cli.js',
  ])
    put(f);
  await copyProgram(root, stage);

  t.same(readdirSync(join(stage, 'dist/bundle')).sort(), ['hearth.cjs', 'hearth.mjs'], 'the bundle and its entry, no cache');
  t.equal(readFileSync(join(stage, 'dist/bundle/hearth.cjs'), 'utf8'), 'dist/bundle/hearth.cjs', 'copied whole');
  for (const f of ['bin/hearth.mjs', 'dist/runtime/cli/run.js', 'systemd/hearth.service', 'docs/recipe-api.md', 'LICENSE', 'package.json'])
    t.ok(existsSync(join(stage, f)), `${f} is in the release`);
  t.ok(existsSync(join(stage, 'install.sh')), 'the installer at the top');
  t.notOk(existsSync(join(stage, 'dist/test-support')), "nor the tests' own build output");
});

t.test('copyProgram refuses a checkout without what package.json names', async (t) => {
  const { dir } = scratchFiles(t, 'hearth-release-stage-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'hearth', files: ['dist'] }));
  await t.rejects(copyProgram(dir, join(dir, 'stage')), /dist is missing from the checkout/);
});
