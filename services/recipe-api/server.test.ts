import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import t, { type Test } from 'tap';
import { recordSchemas } from '../../platform/prebuilt-validators.js';
import { referenceDir } from '../../test-support/shared.js';
import { CatalogError } from './catalog.js';
import { OPERATIONS } from './routes/operations.js';
import { createRecipeApi } from './server.js';
import { copyReferenceCatalog } from './test-helpers.js';

type J = Record<string, unknown>;

async function start(t: Test, extra: Partial<Parameters<typeof createRecipeApi>[0]> = {}) {
  const dir = t.testdir();
  copyReferenceCatalog(dir);
  const api = createRecipeApi({ dir, certificationsDir: `${referenceDir}examples/certifications`, ...extra });
  const address = await api.app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => api.app.close());
  return { api, address };
}

/** One real request of each operation; every one must answer 200 with a JSON object. */
const SAMPLES: Record<string, { url: string; body?: unknown }> = {
  searchRecipes: { url: '/api/search?q=carob' },
  getRecipe: { url: '/api/recipes/bev-01?include=all' },
  similarRecipes: { url: '/api/recipes/bev-01/similar' },
  findByPantry: { url: '/api/pantry?have=carob,sugar' },
  randomRecipe: { url: '/api/random?seed=a&count=2' },
  compareRecipes: { url: '/api/compare?ids=bev-01,bake-01' },
  ingredientProfile: { url: '/api/ingredient?name=sugar' },
  aggregateStats: { url: '/api/aggregate?group_by=cuisine&metric=kcal' },
  planMeals: { url: '/api/meal-plan?kcal=1200&meals=2' },
  shoppingList: { url: '/api/shopping-list?ids=bev-01,bake-01&servings=4' },
  listMethods: { url: '/api/methods' },
  recipesByMethod: { url: '/api/methods/baking' },
  listDiets: { url: '/api/diets' },
  recipesByDiet: { url: '/api/diets/vegan' },
  reviewDietClaims: { url: '/api/diets/review' },
  listCertifications: { url: '/api/certifications' },
  listCountries: { url: '/api/countries' },
  listIngredients: { url: '/api/ingredients?q=sug' },
  listCategories: { url: '/api/categories' },
  listSources: { url: '/api/sources' },
  recipesBySource: { url: '/api/sources/world' },
  listLanguages: { url: '/api/languages' },
  getFacets: { url: '/api/facets' },
  listOperations: { url: '/api/operations?family=heat' },
  listDevices: { url: '/api/devices' },
  explainStep: { url: '/api/explain-step?recipe_id=bake-01&node=n4' },
  dryRun: { url: '/api/dry-run', body: { recipe_id: 'bev-01', device: 'demo-hob-robot', human_present: true } },
  checkTemperature: {
    url: '/api/check-temperature',
    body: {
      operation: 'cw.op.simmer',
      readings: [
        { t: 0, tempC: 90 },
        { t: 60, tempC: 99 },
      ],
    },
  },
};

async function call(address: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(
    `${address}${url}`,
    body === undefined
      ? { headers }
      : { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) },
  );
  const text = await res.text();
  return { res, status: res.status, json: (text ? JSON.parse(text) : undefined) as J };
}

t.test('every operation of the reference document answers over HTTP with a JSON object', async (t) => {
  const { address } = await start(t);
  const reference = JSON.parse(readFileSync(`${referenceDir}api/recipe-api.openapi.json`, 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const refIds = Object.values(reference.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
  t.equal(refIds.length, 28);
  t.same(Object.keys(SAMPLES).sort(), [...refIds].sort(), 'a sample request for each of the 28 operations');
  for (const id of refIds) {
    const s = SAMPLES[id] as { url: string; body?: unknown };
    const r = await call(address, s.url, s.body);
    t.equal(r.status, 200, `${id} ${s.url}: ${JSON.stringify(r.json).slice(0, 200)}`);
    t.equal(r.res.headers.get('access-control-allow-origin'), '*', `${id} CORS`);
    t.ok(r.json && typeof r.json === 'object' && !Array.isArray(r.json), `${id} answers an object`);
  }
  const temp = await call(address, SAMPLES.checkTemperature?.url as string, SAMPLES.checkTemperature?.body);
  t.equal(temp.json.envelopeOk, false, 'a trace reaching 99 °C leaves the simmer envelope');
  t.equal(temp.json.reason, 'left_envelope');
  const dry = await call(address, '/api/dry-run', { recipe_id: 'bake-01', device: 'demo-oven' });
  t.equal(dry.json.state, 'refused', 'a V0 recipe is refused with nobody present');
  const cert = await call(address, '/api/certifications');
  t.match(cert.json.note as string, /fictional authority/);
  t.equal(cert.json.example_records_only, true);
  t.ok((cert.json.records as J[]).length >= 4 && (cert.json.records as J[]).every((r) => r.example === true));
});

t.test('/api/openapi.json is valid OpenAPI 3.1, generated from the routes, with exactly the 28 reference operations', async (t) => {
  const { address } = await start(t);
  const { json: doc } = await call(address, '/api/openapi.json');
  t.equal(doc.openapi, '3.1.0');
  const validator = new Validator();
  const res = await validator.validate(doc as Parameters<Validator['validate']>[0]);
  t.ok(res.valid, `valid: ${JSON.stringify(res.errors ?? '').slice(0, 500)}`);
  const reference = JSON.parse(readFileSync(`${referenceDir}api/recipe-api.openapi.json`, 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const ops = (d: { paths: Record<string, Record<string, { operationId: string }>> }) =>
    Object.entries(d.paths)
      .flatMap(([p, m]) => Object.entries(m).map(([method, o]) => `${method.toUpperCase()} ${p} ${o.operationId}`))
      .sort();
  t.same(ops(doc as never), ops(reference), 'same methods, paths and operation ids as the reference');
  t.same(ops(doc as never), OPERATIONS.map((o) => `${o.method} ${o.path} ${o.operationId}`).sort(), 'exactly the served route table');
  // Every documented query parameter of the reference exists on the same operation here.
  for (const [p, methods] of Object.entries(reference.paths)) {
    for (const [m, o] of Object.entries(methods) as [string, { parameters?: { name: string }[] }][]) {
      const mine = ((doc.paths as J)[p] as J)[m] as { parameters: { name: string }[] };
      const names = new Set(mine.parameters.map((x) => x.name));
      const missing = (o.parameters ?? []).map((x) => x.name).filter((n) => !names.has(n));
      t.same(missing, [], `${m} ${p} has every reference parameter`);
    }
  }
});

t.test('CORS preflight is open', async (t) => {
  const { address } = await start(t);
  const res = await fetch(`${address}/api/dry-run`, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  t.equal(res.status, 204);
  t.equal(res.headers.get('access-control-allow-origin'), '*');
  t.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
  t.match(res.headers.get('access-control-allow-headers') ?? '', /content-type/);
});

t.test('errors are {error, detail} with a 4xx status', async (t) => {
  const { address } = await start(t);
  const cases: [string, unknown, number][] = [
    ['/api/recipes/no-such-recipe', undefined, 404],
    ['/api/search?limit=26', undefined, 400],
    ['/api/search?kcal_max=lots', undefined, 400],
    ['/api/search?sort=colour', undefined, 400],
    ['/api/search?diet=paleo', undefined, 400],
    ['/api/recipes/bev-01?include=poems', undefined, 400],
    ['/api/compare?ids=bev-01', undefined, 400],
    ['/api/aggregate', undefined, 400],
    ['/api/explain-step?recipe_id=bev-01&node=n99', undefined, 404],
    ['/api/no-route', undefined, 404],
    ['/api/dry-run', { recipe_id: 'bev-01' }, 400],
    ['/api/dry-run', { recipe_id: 'bev-01', device: 'toaster-9000' }, 404],
    ['/api/check-temperature', { operation: 'cw.op.simmer', readings: 'hot' }, 400],
  ];
  for (const [url, body, status] of cases) {
    const r = await call(address, url, body);
    t.equal(r.status, status, url);
    t.same(Object.keys(r.json).sort(), ['detail', 'error'], `${url} body shape`);
    t.type(r.json.detail, 'string');
  }
  const bad = await fetch(`${address}/api/dry-run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"recipe_id":',
  });
  t.equal(bad.status, 400);
  t.same(Object.keys((await bad.json()) as J).sort(), ['detail', 'error']);
});

t.test('the limiter is off by default and, when on, answers 429 with Retry-After', async (t) => {
  const off = await start(t);
  for (let i = 0; i < 40; i++) t.equal((await call(off.address, '/api/countries')).status, 200);
  let now = 0;
  const on = await start(t, { rateLimit: { ratePerSecond: 1, burst: 2, now: () => now } });
  t.equal((await call(on.address, '/api/countries')).status, 200);
  t.equal((await call(on.address, '/api/countries')).status, 200);
  const limited = await call(on.address, '/api/countries');
  t.equal(limited.status, 429);
  t.equal(limited.res.headers.get('retry-after'), '1');
  t.same(Object.keys(limited.json).sort(), ['detail', 'error']);
  now += 1000;
  t.equal((await call(on.address, '/api/countries')).status, 200, 'a token back after a second');
});

t.test('a catalog document that does not validate stops the load with its path and the reason', async (t) => {
  const dir = t.testdir({
    'ok.json': readFileSync(`${referenceDir}catalog/archive/bev-01.cookwala.json`, 'utf8'),
    sub: { 'broken.json': '{"id": "x", "dish": 3}' },
  });
  let caught: unknown;
  try {
    createRecipeApi({ dir });
  } catch (err) {
    caught = err;
  }
  t.ok(caught instanceof CatalogError, 'a CatalogError');
  t.match((caught as Error).message, /sub\/broken\.json: not a valid recipe document \(/);
  const bad = t.testdir({ 'a.json': '{ nope' });
  t.throws(() => createRecipeApi({ dir: bad }), /a\.json: not valid JSON/);
  const tampered = JSON.parse(readFileSync(`${referenceDir}catalog/archive/bev-01.cookwala.json`, 'utf8')) as J;
  tampered.revision = 99;
  const tdir = t.testdir({ 't.json': JSON.stringify(tampered) });
  t.throws(() => createRecipeApi({ dir: tdir }), /t\.json: hash does not match/);
  t.throws(() => createRecipeApi({ dir: join(tdir, 'missing') }), /missing: cannot read \(ENOENT\)/);
});

t.test('each operation is an MCP tool on /mcp, which needs a token', async (t) => {
  const token = 'test-token-0123456789abcdef';
  const { address } = await start(t, { mcpTokens: [token] });
  const rpc = (body: unknown, auth?: string) =>
    fetch(`${address}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(auth ? { authorization: `Bearer ${auth}` } : {}),
      },
      body: JSON.stringify(body),
    });
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  const none = await rpc(init);
  t.equal(none.status, 401);
  t.same(Object.keys((await none.json()) as J).sort(), ['detail', 'error']);
  t.equal((await rpc(init, 'wrong-token-0123456789abcdef')).status, 401);
  const { Client } = await import('@modelcontextprotocol/client');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  t.teardown(() => client.close());
  const tools = await client.listTools();
  t.same(tools.tools.map((x) => x.name).sort(), OPERATIONS.map((o) => o.operationId).sort(), '28 tools');
  const found = await client.callTool({ name: 'searchRecipes', arguments: { q: 'kharoub' } });
  t.equal(((found.structuredContent as J).items as J[])[0]?.id, 'bev-01');
  const halal = await client.callTool({ name: 'recipesByDiet', arguments: { diet: 'halal', limit: 25 } });
  t.notOk(((halal.structuredContent as J).items as J[]).some((x) => x.id === 'kids-apple-donuts'));
});

t.test(
  "a hashed recipe's document is read back from its file when asked for, and a file changed since the start answers 503",
  async (t) => {
    const { api, address } = await start(t);
    const before = await call(address, '/api/recipes/bev-01?include=all');
    t.equal(before.status, 200);
    // Changed on disk after the load: the hash verified at start no longer matches.
    const file = join(api.catalog.dir, 'archive', 'bake-01.cookwala.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as J;
    writeFileSync(file, JSON.stringify({ ...doc, notes: 'changed after the start' }));
    const changed = await call(address, '/api/recipes/bake-01?include=all');
    t.equal(changed.status, 503);
    t.equal(changed.json.error, 'catalog_changed');
    t.match(changed.json.detail, /bake-01/);
    // Listings read the rows only; an unchanged recipe answers as before.
    t.equal((await call(address, '/api/search?q=bake')).status, 200);
    t.same((await call(address, '/api/recipes/bev-01?include=all')).json, before.json);
  },
);

t.test('POST bodies whose validators cannot be loaded: 500 each time, said once on stderr, then as before', async (t) => {
  const { address } = await start(t);
  // The validators come through platform/prebuilt-validators.ts, whose schema recorder runs first: make it fail.
  recordSchemas(() => {
    throw new Error('route validators damaged');
  });
  t.teardown(() => recordSchemas(undefined));
  const said: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (String(chunk).startsWith('hearth: recipe API')) said.push(String(chunk));
    else return Reflect.apply(write, process.stderr, [chunk, ...rest]) as boolean;
    return true;
  }) as typeof process.stderr.write;
  t.teardown(() => {
    process.stderr.write = write;
  });
  const body = SAMPLES.dryRun?.body;
  for (let i = 0; i < 3; i++) {
    const r = await call(address, '/api/dry-run', body);
    t.equal(r.status, 500, `POST ${i + 1} answers 500`);
    t.equal(r.json.error, 'internal');
  }
  t.equal(said.length, 1, 'one line on stderr, not one per request');
  t.match(
    said[0],
    /^hearth: recipe API: cannot load the validators of the POST bodies \(route validators damaged\); POST requests answer 500\n$/,
  );
  t.equal((await call(address, '/api/countries')).status, 200, 'GETs answer meanwhile');
  recordSchemas(undefined);
  t.equal((await call(address, '/api/dry-run', body)).status, 200, 'once they load, POSTs answer as before');
  t.equal(said.length, 1);
});
