// @slow: it runs the built `hearth recipe-api serve` as a process (npm run test:fast skips this file).
/**
 * The recipe API's own V8 code cache (scripts/build-bundle.mjs records it from a warm-up of the command over a
 * small generated catalog; scripts/bundle-entry.mjs reads it for `hearth recipe-api serve` only): the built
 * command takes it and answers, and the other commands keep the start's cache.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { distIsFresh, repoRoot, runCli, spawnCli } from '../../test-support/cli.js';
import { copyReferenceCatalog } from './test-helpers.js';

const bundle = join(repoRoot, 'dist/bundle');

// npm ci builds dist/ (prepare), so CI always runs this; runtime/app/compiled-start.test.ts rebuilds a stale one.
const built = distIsFresh() && existsSync(join(bundle, 'hearth.mjs'));
const skip = built ? false : 'dist/ is not a fresh build: run npm run build';

t.test('hearth recipe-api serve runs with the code cache recorded for it', { skip }, async (t) => {
  t.ok(existsSync(join(bundle, 'hearth.cjs.recipe-api.cache')), 'the build wrote the recipe API its own cache');
  const dir = mkdtempSync(join(tmpdir(), 'hearth-recipe-api-code-cache-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const catalog = join(dir, 'catalog');
  copyReferenceCatalog(catalog);
  const env = { ...process.env, HEARTH_CODE_CACHE_REPORT: '1' };
  const { child, match, output } = await spawnCli(
    ['recipe-api', 'serve', '--catalog', catalog, '--port', '0', '--no-index-cache'],
    /recipe API serving \d+ recipes .* at (http:\/\/\S+)\n/,
    { env, timeoutMs: 120_000 },
  );
  t.teardown(() => {
    child.kill('SIGTERM');
  });
  const res = await fetch(`${match[1]}/api/search?q=egg%20tart`);
  t.equal(res.status, 200, 'it answers');
  t.ok(((await res.json()) as { total: number }).total > 0, 'and finds the egg tart');
  t.match(output(), /hearth: code cache used \(recipe-api\)\n/, "V8 took the recipe API's cache");

  // Any other command keeps the start's cache (`hearth start` is checked by runtime/app/compiled-start.test.ts).
  const other = await runCli(['catalog', 'generate', '--count', '1', '--seed', 'x', '--out', join(dir, 'one'), '--shape', 'catalog'], {
    env,
  });
  t.equal(other.code, 0, other.stderr);
  t.match(other.stderr, /hearth: code cache used\n/, "another command reads the start's cache");
});
