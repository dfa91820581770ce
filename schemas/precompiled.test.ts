import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import t from 'tap';
import { distIsFresh } from '../test-support/cli.js';
import { SCHEMA_BASE, schemaSourceHash } from './index.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const schemaDir = join(root, 'schemas/json');

t.test('the validators compiled at build time answer as ajv compiling the same schemas at run time', async (t) => {
  const out = join(t.testdir(), 'validators.cjs');
  execFileSync(process.execPath, [join(root, 'scripts/build-validators.mjs'), out], { stdio: 'pipe' });
  const pre = createRequire(import.meta.url)(out) as Record<string, unknown> & { keys: Record<string, string>; sourceHash: string };
  t.equal(pre.sourceHash, schemaSourceHash(schemaDir), 'the file records the hash of the schemas it was built from');

  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  const mod = addFormatsPlugin as unknown as { default?: unknown };
  ((typeof mod === 'function' ? mod : mod.default) as (a: Ajv2020) => void)(ajv);
  for (const f of readdirSync(schemaDir))
    if (f.endsWith('.schema.json')) ajv.addSchema(JSON.parse(readFileSync(join(schemaDir, f), 'utf8')));

  const docs: { name: string; doc: unknown }[] = [];
  const add = (dir: string) => {
    for (const f of readdirSync(dir, { recursive: true }) as string[]) {
      if (!f.endsWith('.json')) continue;
      const doc = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>;
      docs.push({ name: f, doc });
      // Broken variants: a missing member, a wrong type, an unknown member.
      const { id: _id, ...noId } = doc;
      docs.push({ name: `${f} without id`, doc: noId });
      docs.push({ name: `${f} with a numeric svc`, doc: { ...doc, svc: 2, hash: 'nope' } });
      docs.push({ name: `${f} with an unknown member`, doc: { ...doc, zzUnknown: true } });
    }
  };
  add(join(root, 'examples'));
  add(join(root, '../shared/reference/catalog'));
  add(join(root, 'schemas/packs'));

  let compared = 0;
  for (const [key, exportName] of Object.entries(pre.keys)) {
    const fast = pre[exportName] as ValidateFunction;
    const slow = ajv.getSchema(`${SCHEMA_BASE}${key}`) as ValidateFunction;
    t.ok(slow, `ajv knows ${key}`);
    for (const { name, doc } of docs) {
      const a = fast(doc);
      const b = slow(doc);
      if (a !== b || JSON.stringify(fast.errors ?? null) !== JSON.stringify(slow.errors ?? null)) t.fail(`${key} on ${name}: ${a} vs ${b}`);
      compared++;
    }
  }
  t.ok(Object.keys(pre.keys).includes('recipe.schema.json'), 'the recipe schema is among them');
  // The recipe validator written alone (what a catalog load uses) answers as the one among all.
  const alone = createRequire(import.meta.url)(out.replace(/\.cjs$/, '-recipe.cjs')) as typeof pre;
  t.same(alone.keys, { 'recipe.schema.json': 'v0' });
  t.equal(alone.sourceHash, pre.sourceHash);
  const one = alone.v0 as ValidateFunction;
  const all = pre[pre.keys['recipe.schema.json'] as string] as ValidateFunction;
  for (const { name, doc } of docs)
    if (one(doc) !== all(doc) || JSON.stringify(one.errors ?? null) !== JSON.stringify(all.errors ?? null))
      t.fail(`the recipe validator alone on ${name}`);
  t.ok(compared > 1000, `${compared} validations compared`);
});

t.test('a process that validates only recipes loads the recipe validator alone, not every schema', async (t) => {
  if (!existsSync(join(root, 'dist/schemas-validators-recipe.cjs')) || !distIsFresh()) {
    t.pass('no fresh build in dist/ to check (npm run build writes the validators)');
    return;
  }
  const script = `
    import { createRequire } from 'node:module';
    const { validate } = await import('./schemas/index.ts');
    const outcome = validate.recipe({});
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('schemas-validators'));
    console.log(JSON.stringify({ valid: outcome.valid, loaded: loaded.map((k) => k.split('/').pop()) }));`;
  const out = execFileSync(process.execPath, ['--import=./test-support/ts-loader/register.mjs', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  t.same(JSON.parse(out), { valid: false, loaded: ['schemas-validators-recipe.cjs'] });
});
