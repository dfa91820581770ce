/**
 * What a recipe API start leaves unloaded until used, in a process of its own (the test processes load both
 * themselves): better-sqlite3 without `--hub-data` (hub-tokens.ts), and the build's route validators until the
 * first POST with a body (server.ts).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { childEnv, repoRoot } from '../../test-support/cli.js';
import { copyReferenceCatalog } from './test-helpers.js';

t.test('better-sqlite3 and the route validators are loaded only when used', async (t) => {
  const catalog = join(t.testdir({ catalog: {} }), 'catalog');
  copyReferenceCatalog(catalog);
  const server = pathToFileURL(join(repoRoot, 'services/recipe-api/server.ts')).href;
  const script = [
    `const { createRecipeApi } = await import(${JSON.stringify(server)});`,
    `const api = createRecipeApi({ dir: ${JSON.stringify(catalog)}, mcpTokens: [] });`,
    "const address = await api.app.listen({ port: 0, host: '127.0.0.1' });",
    "const cache = (await import('node:module')).createRequire(import.meta.url).cache;",
    'const loaded = (part) => Object.keys(cache).filter((f) => f.includes(part)).length > 0;',
    "await (await fetch(address + '/api/search?q=egg')).arrayBuffer();",
    "const before = { sqlite: loaded('better-sqlite3'), validators: loaded('route-validators') };",
    "const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ recipe_id: 'bev-01' }) };",
    "const bad = await fetch(address + '/api/dry-run', post);",
    "const after = { status: bad.status, validators: loaded('route-validators') };",
    'process.stdout.write(JSON.stringify({ before, after }));',
    'await api.app.close();',
  ].join('\n');
  const loader = pathToFileURL(join(repoRoot, 'test-support/ts-loader/register.mjs')).href;
  const r = spawnSync(process.execPath, [`--import=${loader}`, '--input-type=module', '-e', script], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: childEnv(),
  });
  t.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { before: { sqlite: boolean; validators: boolean }; after: { status: number; validators: boolean } };
  t.same(out.before, { sqlite: false, validators: false }, 'a start and a search load neither');
  t.same(out.after, { status: 400, validators: true }, 'the first POST loads the validators and checks its body');
});
