/**
 * scripts/bundle-entry.mjs (the build copies it to dist/bundle/hearth.mjs) hands V8 a code cache only when the cache
 * was recorded from the bundle beside it. V8 checks nothing but the source's length, so a changed bundle of the same
 * length ran the old code from an old cache. Run here over a small bundle of its own in a scratch folder, as the
 * build's warm-ups record a cache (HEARTH_WRITE_CODE_CACHE=1) and a start reads it (HEARTH_CODE_CACHE_REPORT=1).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { repoRoot, scratchFiles } from '../test-support/cli.js';

/** A bundle as esbuild's banner and footer wrap it: what it prints is `word` (the same length for every word). */
const bundleSaying = (word: string) =>
  `(function (exports, require, module, __filename, __dirname) {\nfunction say() { process.stdout.write("${word}\\n"); }\nsay();\n})`;

function folder(t: Test) {
  const { dir } = scratchFiles(t, 'hearth-bundle-entry-');
  copyFileSync(join(repoRoot, 'scripts/bundle-entry.mjs'), join(dir, 'hearth.mjs'));
  const run = (args: string[], env: Record<string, string>) => {
    const r = spawnSync(process.execPath, [join(dir, 'hearth.mjs'), ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
    t.equal(r.status, 0, `hearth.mjs ${args.join(' ')} exits 0\n${r.stderr}`);
    return { stdout: r.stdout, stderr: r.stderr };
  };
  return {
    dir,
    bundle: (word: string) => writeFileSync(join(dir, 'hearth.cjs'), bundleSaying(word)),
    record: (args: string[] = []) => run(args, { HEARTH_WRITE_CODE_CACHE: '1' }),
    start: (args: string[] = []) => run(args, { HEARTH_CODE_CACHE_REPORT: '1' }),
  };
}

t.test('a cache recorded from the bundle beside it is used; after a change of the same length it is not', async (t) => {
  const f = folder(t);
  f.bundle('old');
  t.equal(f.record().stdout, 'old\n', 'the warm-up runs the bundle');
  t.ok(existsSync(join(f.dir, 'hearth.cjs.cache')), 'and records its cache');
  const first = f.start();
  t.equal(first.stdout, 'old\n');
  t.equal(first.stderr, 'hearth: code cache used\n', 'V8 takes the cache of this very bundle');

  f.bundle('new'); // the same length: V8 alone would take the old cache and run the old code
  const changed = f.start();
  t.equal(changed.stdout, 'new\n', 'the changed bundle runs its own code');
  t.equal(changed.stderr, 'hearth: code cache stale\n', 'the old cache is not handed to V8');
});

t.test("a cache without the bundle's stamp (V8's bare data) is not used either", async (t) => {
  const f = folder(t);
  f.bundle('one');
  f.record();
  const cache = join(f.dir, 'hearth.cjs.cache');
  const text = readFileSync(cache);
  writeFileSync(cache, text.subarray(text.indexOf(10) + 1)); // the V8 data alone, as the build wrote it before
  const r = f.start();
  t.equal(r.stdout, 'one\n');
  t.equal(r.stderr, 'hearth: code cache stale\n');
});

t.test("the recipe API's own cache is checked the same way", async (t) => {
  const f = folder(t);
  const serve = ['recipe-api', 'serve'];
  f.bundle('abc');
  f.record(serve);
  t.ok(existsSync(join(f.dir, 'hearth.cjs.recipe-api.cache')), 'recorded as the recipe API cache');
  t.notOk(existsSync(join(f.dir, 'hearth.cjs.cache')), "not as the start's");
  t.equal(f.start(serve).stderr, 'hearth: code cache used (recipe-api)\n');
  f.bundle('xyz');
  const changed = f.start(serve);
  t.equal(changed.stdout, 'xyz\n', 'the changed bundle runs its own code');
  t.equal(changed.stderr, 'hearth: code cache stale (recipe-api)\n');
});
