/** The recipe API over a generated catalog of 2,000 recipes in the catalog shape. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parseJson } from '../../core/canonical.js';
import { documentHash } from '../../core/hash.js';
import { validate } from '../../schemas/index.js';
import { generateCatalog, writeCatalog } from '../catalog/generate.js';
import { createRecipeApi } from './server.js';

type J = Record<string, unknown>;

t.test('catalog-shaped recipes validate, hash, and carry the catalog fields; plain output is unchanged', async (t) => {
  const files = generateCatalog(300, 'shape', 'catalog');
  t.same(files, generateCatalog(300, 'shape', 'catalog'), 'seeded');
  const plain = generateCatalog(5, 'shape');
  t.notOk(
    plain.some((f) => f.text.includes('"nutrition"')),
    'the default shape stays plain',
  );
  let facts = 0;
  for (const f of files) {
    const d = parseJson(f.text) as J;
    if (documentHash(d) !== d.hash) t.fail(`${d.id} hash`);
    const v = validate.recipe(d);
    if (!v.valid) t.fail(`${d.id}: ${JSON.stringify(v.issues.slice(0, 2))}`);
    for (const k of ['nutrition', 'cost', 'source', 'license']) if (d[k] === undefined) t.fail(`${d.id} lacks ${k}`);
    if (d['x-cookwala-text'] === 'facts') {
      facts++;
      if (JSON.stringify(d.text).includes('"steps"')) t.fail(`${d.id}: a facts-only recipe carries step wording`);
    }
  }
  t.ok(facts > 50, 'some recipes are facts-only');
});

t.test('2,000 generated recipes load; search, diets and paging answer over them', async (t) => {
  const dir = t.testdir();
  writeCatalog(join(dir, 'cat'), 2000, 'scale', 'catalog');
  const api = createRecipeApi({ dir: join(dir, 'cat') });
  t.teardown(() => api.app.close());
  t.equal(api.catalog.rows.length, 2000);
  const get = async (url: string) => {
    const r = await api.app.inject(url);
    t.equal(r.statusCode, 200, url);
    return JSON.parse(r.body) as J;
  };
  const soup = await get('/api/search?q=lentl%20soup&limit=25');
  t.ok((soup.total as number) > 0, 'a typo still finds lentil soup');
  t.ok((soup.items as J[]).every((x) => /lentil/i.test(x.title as string)));
  const halal = await get('/api/diets/halal?limit=25');
  t.ok((halal.total as number) > 0 && (halal.withheld_unassessed as number) > 0, 'claims and unassessed recipes both occur');
  const facts = await get('/api/search?source=world&detail=full&limit=5');
  t.ok((facts.items as J[]).every((x) => x.step_text_published === false));
  const page = await get('/api/search?sort=-protein&limit=25&offset=25');
  t.equal(page.next_offset, 50);
  const id = (page.items as J[])[0]?.id as string;
  const doc = JSON.parse(readFileSync(join(dir, 'cat', `${id}.svc.json`), 'utf8')) as J;
  t.equal(((await get(`/api/recipes/${id}`)).hash as string) ?? '', doc.hash);
});
