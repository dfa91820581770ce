/** The meaning rules of spec §4.5, checked on the reference's catalog recipes over a real socket. */
import t, { type Test } from 'tap';
import { createRecipeApi } from './server.js';
import { copyReferenceCatalog, plantFactsOnlyWording } from './test-helpers.js';

type J = Record<string, unknown>;

async function start(t: Test) {
  const dir = t.testdir();
  copyReferenceCatalog(dir);
  const planted = plantFactsOnlyWording(dir);
  const api = createRecipeApi({ dir });
  const address = await api.app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => api.app.close());
  const get = async (url: string) => {
    const res = await fetch(`${address}${url}`);
    t.equal(res.status, 200, url);
    return { text: await res.clone().text(), json: (await res.json()) as J };
  };
  return { get, planted, api };
}

const items = (j: J) => j.items as J[];
const ids = (j: J) => items(j).map((x) => x.id as string);

t.test('halal and kosher come only from reviewed claims; a recipe without one is withheld, never "not halal"', async (t) => {
  const { get, api } = await start(t);
  const unassessed = api.catalog.rows.filter((r) => !r.claims.has('halal')).map((r) => r.id);
  t.ok(unassessed.includes('kids-apple-donuts'), 'the kids recipe carries no diet claim');
  for (const url of ['/api/diets/halal?limit=25', '/api/search?diet=halal&limit=25', '/api/search?diet=halal&basis=published&limit=25']) {
    const { json } = await get(url);
    t.ok(ids(json).length > 0, `${url} finds reviewed halal recipes`);
    for (const id of ids(json)) t.notOk(unassessed.includes(id), `${url}: ${id} has a reviewed halal claim`);
    t.equal(json.total, ids(json).length);
  }
  const halal = (await get('/api/diets/halal?limit=25')).json;
  t.equal(halal.withheld_unassessed, unassessed.length, 'withheld recipes are counted, not called non-halal');
  t.match(halal.withheld_note as string, /not the same as not compliant/);
  t.notMatch(JSON.stringify(halal), /not halal|non-halal/i);
  t.ok(items(halal).every((x) => x.diet_basis === 'published'));
  // The kosher type comes from the claim note: bev-01 "(pareve)", w-cn-008 "(dairy)".
  const kosher = (await get('/api/diets/kosher?limit=25')).json;
  const type = Object.fromEntries(items(kosher).map((x) => [x.id, x.kosher_type]));
  t.equal(type['bev-01'], 'pareve');
  t.equal(type['w-cn-008'], 'dairy');
  t.notOk('kids-apple-donuts' in type);
  const pareve = ids((await get('/api/diets/pareve?limit=25')).json);
  t.ok(pareve.includes('bev-01'));
  t.notOk(pareve.includes('w-cn-008'), 'a dairy kosher claim is not pareve');
  t.same(ids((await get('/api/search?diet=kosher_dairy&limit=25')).json), ['w-cn-008']);
});

t.test('a facts-only recipe never leaks step text, whatever the parameters', async (t) => {
  const { get, planted } = await start(t);
  const urls = [
    `/api/recipes/${planted.id}?include=all`,
    `/api/recipes/${planted.id}?include=steps,recipe,notes,summary`,
    `/api/recipes/${planted.id}?view=steps`,
    `/api/recipes/${planted.id}?view=full&lang=ar`,
    `/api/recipes/${planted.id}?include=all&lang=Arabic&servings=3`,
    `/api/search?q=boquerones&detail=full`,
    `/api/explain-step?recipe_id=${planted.id}&node=n1`,
  ];
  for (const url of urls) {
    const { text, json } = await get(url);
    t.notMatch(text, planted.sentence, `${url} withholds the wording`);
    const row = (json.items ? items(json)[0] : json) as J;
    t.equal(row.step_text_published, false, `${url} says the wording is withheld`);
  }
  const steps = (await get(`/api/recipes/${planted.id}?include=steps`)).json;
  t.same(
    (steps.steps as J[]).map((s) => s.node),
    ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7'],
    'operation order is given',
  );
  t.match(steps.source_url as string, /^https:\/\//, 'with the source link');
  // A CC BY recipe with published wording does give it.
  const open = (await get('/api/recipes/bev-01?include=steps')).json;
  t.equal(open.step_text_published, true);
  t.ok((open.steps as J[]).every((s) => typeof s.text === 'string' && (s.text as string).length > 0));
});

t.test('a kids query never returns chilli, and lists cautions', async (t) => {
  const { get, api } = await start(t);
  const spicy = api.catalog.rows.find((r) => r.id === 'w-id-002');
  t.ok(
    spicy?.ingredients.some((i) => /sambal/.test(i.name)),
    'the catalog has a chilli dish (sambal, "Spicy")',
  );
  for (const url of [
    '/api/search?kids=true&limit=25',
    '/api/search?kids=true&detail=full&limit=25',
    '/api/random?kids=true&count=10',
    '/api/search?kids_age=4&limit=25',
  ]) {
    const { json, text } = await get(url);
    t.notOk(ids(json).includes('w-id-002'), `${url} leaves out the chilli dish`);
    t.notMatch(text, /sambal|chilli|chili|jalape/i);
    t.notOk(ids(json).includes('w-et-001'), `${url} leaves out the coffee (caffeine)`);
  }
  const kids = (await get('/api/search?kids=true&limit=25')).json;
  t.equal(ids(kids)[0], 'kids-apple-donuts', 'Cooking with Kids recipes come first');
  const first = items(kids)[0] as J;
  t.match((first.kids as J).cautions, [/honey.*12 months/]);
});

t.test('diet_basis, allergen_info.status and diabetic.status follow the stated rules', async (t) => {
  const { get } = await start(t);
  const veg = (await get('/api/search?diet=vegetarian&limit=25')).json;
  const basis = Object.fromEntries(items(veg).map((x) => [x.id, x.diet_basis]));
  t.equal(basis['bev-01'], 'published', 'a reviewed claim');
  t.equal(basis['kids-apple-donuts'], 'inferred', 'an unreviewed recipe by the ingredient screen');
  t.notOk('bake-01' in basis, 'a reviewed recipe without the claim (pastirma) is not vegetarian');
  t.notOk(
    'kids-apple-donuts' in
      Object.fromEntries(items((await get('/api/search?diet=vegetarian&basis=published&limit=25')).json).map((x) => [x.id, 1])),
  );
  const full = async (id: string) => (await get(`/api/recipes/${id}?include=safety`)).json.safety as J;
  t.equal(((await full('bev-01')).allergen_info as J).status, 'none_found', 'reviewed, nothing found, no bought item');
  t.equal(((await full('ec-010')).allergen_info as J).status, 'contains');
  const donuts = (await full('kids-apple-donuts')).allergen_info as J;
  t.equal(donuts.status, 'contains');
  t.same(donuts.declared, ['cereals_gluten', 'milk']);
  t.equal(((await full('ec-010')).diabetic as J).status, 'friendly', 'a reviewed claim wins');
  t.equal(((await full('bev-01')).diabetic as J).status, 'not_friendly', 'sugar over 15 g per serving');
  t.equal(((await full('kids-apple-donuts')).diabetic as J).status, 'unknown', 'no nutrition data');
  const review = (await get('/api/diets/review')).json;
  t.same(
    items(review).map((x) => x.id),
    ['w-id-002'],
    'a nut-free claim with candlenuts is held back',
  );
  t.notOk(ids((await get('/api/search?diet=nut_free&limit=25')).json).includes('w-id-002'));
});

t.test('search tolerates typos and accents; filters, sort, paging and scaling', async (t) => {
  const { get } = await start(t);
  t.same(ids((await get('/api/search?q=kharoub')).json), ['bev-01'], 'a typo');
  t.ok(ids((await get('/api/search?q=b%C3%B3querones')).json).includes('w-es-004'), 'an accent');
  t.same(ids((await get('/api/search?q=%D8%AE%D8%B1%D9%88%D8%A8')).json), ['bev-01'], 'Arabic');
  t.same(ids((await get('/api/search?cuisine=Egyptian&course=drink')).json), ['bev-01']);
  const byKcal = items((await get('/api/search?sort=kcal&limit=25')).json).map((x) => x.kcal);
  const known = byKcal.filter((k) => k !== null) as number[];
  t.same(
    known,
    [...known].sort((a, b) => a - b),
  );
  t.equal(byKcal[byKcal.length - 1], null, 'missing values sort last');
  const p1 = (await get('/api/search?limit=3&sort=-protein')).json;
  t.equal(p1.next_offset, 3);
  const p3 = (await get('/api/search?limit=3&offset=6&sort=-protein')).json;
  t.equal(p3.next_offset, null);
  t.equal(p1.total, 9);
  t.same(ids((await get('/api/search?ingredient=walnuts')).json), ['ec-010']);
  t.same(ids((await get('/api/search?method=baking&exclude_ingredient=pastirma')).json), ['w-cn-008']);
  t.ok(ids((await get('/api/search?allergen_free=fish&limit=25')).json).every((id) => !['w-es-004', 'w-id-002', 'w-es-904'].includes(id)));
  const scaled = (await get('/api/recipes/bake-01?include=ingredients&servings=12')).json;
  t.equal((scaled.ingredients as J[])[0]?.qty, 1, '0.5 kg for 6 is 1 kg for 12');
  const fr = (await get('/api/search?q=carob&lang=fr')).json;
  t.equal(items(fr)[0]?.title_lang, 'fr');
  const xx = (await get('/api/search?q=carob&lang=Klingon')).json;
  t.equal(items(xx)[0]?.title_lang, 'en');
  t.match(xx.lang_note as string, /English/);
});
