/**
 * bin/hearth.mjs runs the compiled CLI only while dist/ is at least as new as every TypeScript source (tests
 * aside), however deep it sits; otherwise it says so and runs the sources. Checked on a copy of the launcher in a
 * made-up package whose dist/ prints a line, with file times set explicitly.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const launcher = fileURLToPath(new URL('./hearth.mjs', import.meta.url));

function write(root: string, rel: string, text: string, seconds: number): void {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  utimesSync(path, seconds, seconds);
}

t.test('a source newer than the build, at any depth, means the sources run; a newer test file does not', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'hearth-launcher-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'bin'));
  copyFileSync(launcher, join(root, 'bin/hearth.mjs'));
  write(root, 'dist/runtime/cli/run.js', "process.stdout.write('compiled\\n');\n", 2_000_000);
  write(root, 'dist/.built', '', 2_000_000);
  write(root, 'runtime/cli/run.ts', '', 1_000_000);
  write(root, 'services/a/b/c/deep.ts', '', 1_000_000);
  const run = () => spawnSync(process.execPath, [join(root, 'bin/hearth.mjs')], { encoding: 'utf8' });

  let r = run();
  t.equal(r.stdout, 'compiled\n', 'every source older than the build: the compiled CLI');
  t.notMatch(r.stderr, /older than the sources/);

  write(root, 'services/a/b/c/deep.test.ts', '', 3_000_000);
  r = run();
  t.equal(r.stdout, 'compiled\n', 'a newer test file does not count');

  write(root, 'services/a/b/c/deep.ts', '', 3_000_000);
  r = run();
  t.match(r.stderr, /dist\/ is older than the sources; running them with tsx/, 'a newer source four folders down');
  t.notMatch(r.stdout, /compiled/);
});
