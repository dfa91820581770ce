import { copyFileSync, cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import t from 'tap';
import { parseJson } from '../../../core/canonical.js';
import { SCHEMA_BASE, validate } from '../../../schemas/index.js';
import { createIndexServer } from '../serve/server.js';
import { FIXED_NOW, testKey } from '../test-helpers.js';
import { buildIndex } from './build.js';
import { BuildInputError } from './sources.js';

const reference = fileURLToPath(new URL('../../../../shared/reference/', import.meta.url));
const schemasDir = fileURLToPath(new URL('../../../schemas/json/', import.meta.url));
const key = testKey();

function ajvWith(dir: string): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const mod = addFormatsPlugin as unknown as { default?: unknown };
  ((typeof mod === 'function' ? mod : mod.default) as (a: Ajv2020) => void)(ajv);
  for (const f of readdirSync(dir)) if (f.endsWith('.schema.json')) ajv.addSchema(parseJson(readFileSync(join(dir, f), 'utf8')) as object);
  return ajv;
}
const own = ajvWith(schemasDir);
const ref = ajvWith(join(reference, 'schemas'));
const def = (name: string): ValidateFunction => {
  const fn = own.getSchema(`${SCHEMA_BASE}index.schema.json#/$defs/${name}`);
  if (!fn) throw new Error(`no $defs/${name}`);
  return fn;
};
const refDef = (name: string): ValidateFunction => {
  const fn = ref.getSchema(`https://cookwala.ai/v1/schemas/catalog.schema.json#/$defs/${name}`);
  if (!fn) throw new Error(`no reference $defs/${name}`);
  return fn;
};

/** The reference's documents carry the spec version as `cookwala`; ours as `svc`. */
const asReference = (doc: Record<string, unknown>) => {
  const { svc, ...rest } = doc;
  return { cookwala: svc, ...rest };
};

/** A catalog folder: the reference catalog (in sub-folders), the example recipes, market and relief documents. */
function catalogFolder(root: string): string {
  const dir = join(root, 'catalog');
  cpSync(join(reference, 'catalog'), dir, { recursive: true });
  for (const f of ['koshari', 'kofta-oven', 'shakshuka'])
    copyFileSync(join(reference, 'examples', `${f}.cookwala.json`), join(dir, `${f}.cookwala.json`));
  copyFileSync(join(reference, 'examples/catalog/ec-010.cookwala.json'), join(dir, 'ec-010.cookwala.json'));
  cpSync(join(reference, 'examples/market'), join(dir, 'market'), { recursive: true });
  for (const f of ['program', 'need', 'impact'])
    copyFileSync(join(reference, 'examples/relief', `${f}.json`), join(dir, `relief-${f}.json`));
  writeFileSync(
    join(dir, 'safety-report.json'),
    JSON.stringify({
      kind: 'SafetyReport',
      svc: '0.2.0',
      id: 'sr-2026-11-001',
      recipeId: 'example-koshari',
      nodeId: 'n4',
      description: 'The oil smoked before the stated temperature on a thin pan.',
      contact: 'cook@example.org',
    }),
  );
  return dir;
}

type Shard = { path: string; hash: string; bytes: number };

t.test(
  'the build publishes vocabularies, policies, schemas, market, relief and report pages; every manifest path is served and valid',
  async (t) => {
    const root = t.testdir({});
    const dir = catalogFolder(root);
    const out = join(root, 'site');
    const r = buildIndex({ recipesDir: dir, outDir: out, key, name: 'Reference index', baseUrl: 'https://index.test', now: FIXED_NOW });
    t.equal(r.recipes, 11, 'the 7 catalog recipes in sub-folders and the 4 examples');
    t.equal(
      r.documents,
      2 + 2 + 1 + 1 + 1 + 1,
      'two providers, two offers of the feed, a program, a need, an impact report, a safety report',
    );

    const { app } = createIndexServer({ dir: out, now: FIXED_NOW, ratePerSecond: 1000, burst: 1000 });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    t.teardown(() => app.close());
    const get = async (path: string) => {
      const res = await fetch(`${base}${path}`);
      t.equal(res.status, 200, `${path} is served`);
      return Buffer.from(await res.arrayBuffer());
    };
    const json = (b: Buffer) => parseJson(b.toString('utf8')) as Record<string, unknown>;
    const check = (fn: ValidateFunction, doc: unknown, what: string) => {
      if (!fn(doc)) t.fail(`${what}: ${JSON.stringify(fn.errors?.slice(0, 3))}`);
    };

    const discovery = json(await get('/.well-known/svc.json'));
    check(def('Discovery'), discovery, 'discovery');
    const endpoints = discovery.endpoints as Record<string, string>;
    for (const [name, u] of Object.entries(endpoints)) t.match(u, /^https:\/\/index\.test\//, `endpoint ${name} is absolute`);

    const manifest = json(await get('/v1/manifest.json'));
    check(def('Manifest'), manifest, 'manifest');
    check(refDef('Manifest'), asReference(manifest), 'manifest against the reference schema');
    const paths = (manifest.shards as Shard[]).map((s) => s.path);
    for (const p of [
      '/v1/vocab/ops.json',
      '/v1/vocab/units.json',
      '/v1/policies/index.json',
      '/v1/policies/hearth-default.json',
      '/v1/schemas/recipe.schema.json',
      '/v1/schemas/index.schema.json',
      '/v1/market/providers.json',
      '/v1/market/offers.json',
      '/v1/relief/programs.json',
      '/v1/relief/needs.json',
      '/v1/relief/impact.json',
      '/v1/reports/index.json',
      '/v1/safety-reports/index.json',
    ])
      t.ok(paths.includes(p), `the manifest lists ${p}`);

    const pageDef: Record<string, string> = {
      '/v1/market/providers.json': 'ProviderPage',
      '/v1/market/offers.json': 'OfferPage',
      '/v1/relief/programs.json': 'ProgramPage',
      '/v1/relief/needs.json': 'NeedPage',
      '/v1/relief/impact.json': 'ImpactReportPage',
      '/v1/reports/index.json': 'ReportPage',
      '/v1/safety-reports/index.json': 'SafetyReportPage',
      '/v1/policies/index.json': 'PolicyList',
    };
    const meta = new Ajv2020({ strict: false });
    let checked = 0;
    for (const s of manifest.shards as Shard[]) {
      const body = await get(s.path);
      t.equal(body.byteLength, s.bytes, `${s.path}: size as listed`);
      const p = s.path;
      if (p.endsWith('.gz')) {
        const lines = gunzipSync(body).toString('utf8').trim().split('\n');
        t.equal(lines.length, 11, 'the dump holds every recipe');
        for (const l of lines) t.ok(validate.recipe(parseJson(l)).valid, 'a dump line is a valid recipe');
      } else if (p.startsWith('/v1/recipes/')) {
        t.ok(validate.recipe(json(body)).valid, `${p} is a valid recipe`);
      } else if (p.startsWith('/v1/index/')) {
        check(def('IndexPage'), json(body), p);
      } else if (p.startsWith('/v1/changes/')) {
        check(def('Changes'), json(body), p);
        const { svc: _svc, ...changes } = json(body); // the reference's Changes carries no spec version
        check(refDef('Changes'), changes, `${p} against the reference schema`);
      } else if (p.startsWith('/v1/vocab/')) {
        check(def('Vocabulary'), json(body), p);
      } else if (p.startsWith('/v1/schemas/')) {
        t.ok(meta.validateSchema(json(body)), `${p} is a valid JSON Schema`);
      } else if (p === '/v1/policies/hearth-default.json') {
        t.ok(validate.safetyLimits(json(body)).valid, 'the default safety-limits pack validates');
      } else if (pageDef[p] !== undefined) {
        check(def(pageDef[p] as string), json(body), p);
      } else if (p.startsWith('/v1/policies/')) {
        check(def('Vocabulary'), json(body), p);
      } else {
        t.fail(`no schema for ${p}`);
      }
      checked++;
    }
    t.ok(checked > 40, `${checked} files fetched and validated`);

    const offers = json(await get('/v1/market/offers.json')).entries as Record<string, unknown>[];
    t.ok(
      offers.every((o) => o.provider === 'did:web:greengrocer.example'),
      "each offer names its feed's provider",
    );
    const reports = json(await get('/v1/safety-reports/index.json')).entries as Record<string, unknown>[];
    t.equal(reports.length, 1);
    t.notOk('contact' in (reports[0] as object), "a reporter's contact is never published");
    const needs = json(await get('/v1/relief/needs.json')).entries as Record<string, unknown>[];
    t.equal(needs[0]?.id, 'need-2026-11-03-shubra');
  },
);

t.test('a catalog with recipes only publishes empty market, relief and report pages', async (t) => {
  const root = t.testdir({ catalog: {} });
  copyFileSync(join(reference, 'examples/koshari.cookwala.json'), join(root, 'catalog/koshari.json'));
  const out = join(root, 'site');
  const r = buildIndex({ recipesDir: join(root, 'catalog'), outDir: out, key, now: FIXED_NOW });
  t.equal(r.documents, 0);
  for (const p of ['v1/market/offers.json', 'v1/relief/needs.json', 'v1/reports/index.json']) {
    const page = parseJson(readFileSync(join(out, p), 'utf8')) as Record<string, unknown>;
    t.same(page.entries, [], `${p} is published empty`);
  }
});

t.test('refusals: no recipes, an unpublished kind, a report about an unknown recipe, a duplicate entry', async (t) => {
  const root = t.testdir({ empty: {}, docs: {}, pledge: {}, report: {}, dup: {} });
  const build = (sub: string) => () => buildIndex({ recipesDir: join(root, sub), outDir: join(root, `out-${sub}`), key, now: FIXED_NOW });
  t.throws(build('empty'), { name: 'BuildInputError', message: /^no recipes in .*empty: it holds no \*\.json files/ });
  copyFileSync(join(reference, 'examples/market/provider-grocer.json'), join(root, 'docs/p.json'));
  t.throws(build('docs'), /1 \*\.json files but none is a recipe/);

  copyFileSync(join(reference, 'examples/koshari.cookwala.json'), join(root, 'pledge/koshari.json'));
  copyFileSync(join(reference, 'examples/relief/pledge-robot.json'), join(root, 'pledge/pledge.json'));
  t.throws(build('pledge'), /pledge\.json: a "Pledge" document is not published by an index/);

  copyFileSync(join(reference, 'examples/koshari.cookwala.json'), join(root, 'report/koshari.json'));
  writeFileSync(join(root, 'report/r.json'), JSON.stringify({ kind: 'SafetyReport', id: 'sr-1', recipeId: 'nope', description: 'x' }));
  t.throws(build('report'), /r\.json: the report names recipe "nope", which this index does not hold/);

  copyFileSync(join(reference, 'examples/koshari.cookwala.json'), join(root, 'dup/koshari.json'));
  copyFileSync(join(reference, 'examples/market/provider-grocer.json'), join(root, 'dup/a.json'));
  copyFileSync(join(reference, 'examples/market/provider-grocer.json'), join(root, 'dup/b.json'));
  t.throws(build('dup'), /b\.json: providers entry did:web:greengrocer\.example is also given by .*a\.json/);
  t.ok(new BuildInputError('x') instanceof Error);
});

t.test('relief documents are checked against relief.schema.json: a bad one stops the build with its path and reason', async (t) => {
  const need = JSON.parse(readFileSync(join(reference, 'examples/relief/need.json'), 'utf8')) as Record<string, unknown>;
  const program = JSON.parse(readFileSync(join(reference, 'examples/relief/program.json'), 'utf8')) as Record<string, unknown>;
  const impact = JSON.parse(readFileSync(join(reference, 'examples/relief/impact.json'), 'utf8')) as Record<string, unknown>;
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['need-nobody', { ...need, people: 0 }, /need-nobody\.json: not a valid Need \(relief\.schema\.json\): \/people must be >= 1/],
    [
      'need-when',
      { ...need, window: { from: 'tomorrow', to: need.window } },
      /need-when\.json: not a valid Need .*\/window\/from must match format "date-time"/,
    ],
    [
      'need-status',
      { ...need, status: 'done' },
      /need-status\.json: not a valid Need .*\/status must be one of "open", "fulfilled", "closed"/,
    ],
    ['need-nowhere', (({ place: _p, ...rest }) => rest)(need), /need-nowhere\.json: not a valid Need .*\/place place is required/],
    ['program-who', { ...program, operator: 'x' }, /program-who\.json: not a valid Program .*\/operator/],
    ['impact-meals', { ...impact, meals: -1 }, /impact-meals\.json: not a valid ImpactReport .*\/meals must be >= 0/],
  ];
  for (const [name, doc, message] of cases) {
    const root = t.testdir({ catalog: {} });
    copyFileSync(join(reference, 'examples/koshari.cookwala.json'), join(root, 'catalog/koshari.json'));
    writeFileSync(join(root, `catalog/${name}.json`), JSON.stringify(doc));
    t.throws(
      () => buildIndex({ recipesDir: join(root, 'catalog'), outDir: join(root, 'site'), key, now: FIXED_NOW }),
      { name: 'BuildInputError', message },
      name,
    );
  }
  // The reference's documents, as they are, still publish.
  const root = t.testdir({ catalog: {} });
  copyFileSync(join(reference, 'examples/koshari.cookwala.json'), join(root, 'catalog/koshari.json'));
  for (const [f, doc] of Object.entries({ need, program, impact })) writeFileSync(join(root, `catalog/${f}.json`), JSON.stringify(doc));
  t.equal(buildIndex({ recipesDir: join(root, 'catalog'), outDir: join(root, 'site'), key, now: FIXED_NOW }).documents, 3);
});
