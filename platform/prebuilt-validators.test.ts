// @slow: runs the build step that starts the device's app in a child process (npm run test:fast skips this file)
/**
 * Validators built ahead of time (scripts/build-route-validators.mjs) answer exactly as ajv compiling the same
 * schema at run time, and are only used for the very schema and options they were built from.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import t from 'tap';
import { distIsFresh, repoRoot } from '../test-support/cli.js';
import { routeRecipe } from './http/validation.js';
import { type AjvRecipe, ajvFor, prebuiltKey, validatorOf } from './prebuilt-validators.js';

t.test('the key is over the options, the formats and the schema', async (t) => {
  const schema = { type: 'object', properties: { a: { type: 'integer' } } };
  const strict = routeRecipe(false);
  t.equal(prebuiltKey(strict, schema), prebuiltKey(routeRecipe(false), structuredClone(schema)), 'same recipe and schema, same key');
  t.not(prebuiltKey(strict, schema), prebuiltKey(routeRecipe(true), schema), 'coercing options: another key');
  t.not(prebuiltKey(strict, schema), prebuiltKey({ ...strict, formats: false }, schema), 'without formats: another key');
  t.not(prebuiltKey(strict, schema), prebuiltKey(strict, { ...schema, required: ['a'] }), 'another schema: another key');
});

t.test('a schema nothing was built for is compiled with ajv', async (t) => {
  const recipe: AjvRecipe = { options: { allErrors: true, strict: false }, formats: false };
  let compiled = 0;
  const check = validatorOf(recipe, { type: 'string', const: `only-in-this-test-${process.pid}` }, () => {
    compiled++;
    return ajvFor(recipe);
  });
  t.equal(compiled, 1, 'ajv was asked for');
  t.notOk(check('something else'));
  t.ok(check(`only-in-this-test-${process.pid}`));
});

/** Values to try on a schema: generic ones, and per declared property a right-looking and a wrong-typed value. */
function samples(schema: Record<string, unknown>): unknown[] {
  const out: unknown[] = [undefined, null, {}, [], 'x', 0, -1, 1.5, true, { zzUnknown: 1 }, 'a'.repeat(300)];
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const good: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(props)) {
    const v =
      p.enum !== undefined
        ? (p.enum as unknown[])[0]
        : p.type === 'integer' || p.type === 'number'
          ? 1
          : p.type === 'boolean'
            ? true
            : 'abc';
    good[k] = v;
    out.push({ [k]: v }, { [k]: { nested: true } }, { [k]: '12' }, { [k]: 12 }, { [k]: null });
  }
  out.push(good, { ...good, zzUnknown: 'x' });
  return out;
}

// The build step runs the compiled app: without a fresh build (`npm run build`) this part is skipped.
const needsBuild = distIsFresh() ? {} : { skip: 'dist/ is older than the sources: run npm run build' };

t.test('the validators built for hearth start answer as ajv compiling the same schema at run time', needsBuild, async (t) => {
  const out = join(t.testdir(), 'validators.cjs');
  execFileSync(process.execPath, [join(repoRoot, 'scripts/build-route-validators.mjs'), out], { stdio: 'pipe', cwd: repoRoot });
  type Sources = Record<string, { recipe: AjvRecipe; schema: Record<string, unknown> }>;
  const read = (file: string) => ({
    built: (createRequire(import.meta.url)(file) as { validators: Record<string, () => ValidateFunction> }).validators,
    sources: JSON.parse(readFileSync(file.replace(/\.cjs$/, '.sources.json'), 'utf8')) as Sources,
  });
  const start = read(out);
  // What the surfaces loaded on first use compile (MCP's tools): a file of its own, not read at start.
  const lazy = read(out.replace(/\.cjs$/, '-lazy.cjs'));
  const hasPrompt = (s: Sources) =>
    Object.values(s).some((v) => JSON.stringify(v.schema).includes('"guests":{"type":"string","pattern":"^[0-9]{1,3}$"}'));
  t.ok(hasPrompt(lazy.sources), "the MCP surface's schemas are built (its plan_dinner prompt's arguments)");
  t.notOk(hasPrompt(start.sources), 'and not into the file hearth start reads');
  t.same(
    Object.keys(lazy.sources).filter((k) => k in start.sources),
    [],
    'no schema in both files',
  );
  const built = { ...start.built, ...lazy.built };
  const sources = { ...start.sources, ...lazy.sources };
  const keys = Object.keys(sources);
  t.ok(keys.length >= 40, `the routes and the configuration of hearth start were heard (${keys.length})`);
  t.same(Object.keys(built).sort(), [...keys].sort(), 'one validator per schema heard');
  // The configuration and a route body (with its uniqueItems bound) are among them.
  const strictKeys = keys.filter((k) => sources[k]?.recipe.options.coerceTypes === false);
  t.ok(strictKeys.length > 0, 'route bodies are built');
  t.ok(
    keys.some((k) => sources[k]?.recipe.formats === false),
    'the configuration schema is built',
  );
  t.ok(
    keys.some((k) => JSON.stringify(sources[k]?.schema).includes('"then":{"uniqueItems":true}')),
    'built from the bounded schemas (uniqueItems only within maxItems), as the routes compile them',
  );
  let compared = 0;
  for (const key of keys) {
    const { recipe, schema } = sources[key] as { recipe: AjvRecipe; schema: Record<string, unknown> };
    t.equal(prebuiltKey(recipe, schema), key, 'the key is the schema and options it was built from');
    const ahead = built[key]?.() as ValidateFunction;
    const now = ajvFor(recipe).compile(schema);
    for (const value of samples(schema)) {
      // Coercion and defaults change the value: each validator gets its own copy.
      const a = structuredClone(value);
      const b = structuredClone(value);
      const okAhead = ahead(a);
      const okNow = now(b);
      compared++;
      if (okAhead !== okNow) {
        t.fail(
          `${key}: ${JSON.stringify(value)} is ${okAhead ? 'valid' : 'invalid'} ahead of time, ${okNow ? 'valid' : 'invalid'} at run time`,
        );
        continue;
      }
      const errs = (v: ValidateFunction) => (v.errors ?? []).map((e) => `${e.instancePath} ${e.keyword} ${e.message}`);
      if (JSON.stringify(errs(ahead)) !== JSON.stringify(errs(now)) || JSON.stringify(a) !== JSON.stringify(b))
        t.fail(`${key}: ${JSON.stringify(value)} answered differently (${errs(ahead)} / ${errs(now)})`);
    }
  }
  t.ok(compared > 500, `${compared} values compared, all alike`);
});

t.test("an MCP tool's schema is found in the file of first-use surfaces: ajv is not loaded for it", needsBuild, async (t) => {
  // In a process of its own (this file loads ajv elsewhere), from dist/ as the device runs it.
  const script = `
    import { createRequire } from 'node:module';
    const { jsonSchema } = await import(${JSON.stringify(`${join(repoRoot, 'dist/platform/mcp/schema.js')}`)});
    const check = jsonSchema({ type: 'object', additionalProperties: false,
      properties: { guests: { type: 'string', pattern: '^[0-9]{1,3}$' }, serveAt: { type: 'string', maxLength: 40 } } });
    const ok = check['~standard'].validate({ guests: '4' });
    const bad = check['~standard'].validate({ guests: 'many' });
    const ajv = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/ajv/dist/core.js'));
    console.log(JSON.stringify({ ok: !ok.issues, bad: bad.issues?.length ?? 0, ajv }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: repoRoot });
  t.same(JSON.parse(out.trim()), { ok: true, bad: 1, ajv: false }, 'valid and invalid answered, ajv never loaded');
});
