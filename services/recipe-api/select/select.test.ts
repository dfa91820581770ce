/** The precomputed structures behind list requests give the answers the plain definitions give. */
import t from 'tap';
import { scratchFiles } from '../../../test-support/cli.js';
import { writeCatalog } from '../../catalog/generate.js';
import { tokens } from '../../index/search/text.js';
import { loadCatalog } from '../catalog.js';
import { listAnswer } from '../routes/routes-find.js';
import type { Row } from '../rows.js';
import { dietVerdict } from './diets.js';
import { METRICS, singular } from './select.js';

type J = Record<string, unknown>;

// A directory of its own, not tap's root fixture: this file may share its process with others (scripts/test-run.mjs).
const dir = scratchFiles(t, 'hearth-recipe-api-select-').dir;
writeCatalog(dir, 400, 'select', 'catalog');
const cat = loadCatalog(dir);

/** Every id of a list request, page after page. */
function ids(q: Record<string, string>): string[] {
  const out: string[] = [];
  for (let offset = 0; ; offset += 25) {
    const a = listAnswer(cat, { ...q, limit: '25', offset: String(offset) }) as J;
    out.push(...(a.items as J[]).map((x) => x.id as string));
    if (a.next_offset === null) return out;
  }
}

const title = (r: Row) => r.titles.en ?? r.id;
const byId = (a: Row, b: Row) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

t.test('sort=name and sort=-name order by localeCompare of the English title, then id', async (t) => {
  const asc = [...cat.rows].sort((a, b) => title(a).localeCompare(title(b)) || byId(a, b)).map((r) => r.id);
  const desc = [...cat.rows].sort((a, b) => title(b).localeCompare(title(a)) || byId(a, b)).map((r) => r.id);
  t.same(ids({ sort: 'name' }), asc);
  t.same(ids({ sort: '-name' }), desc);
  t.same(ids({}), asc, 'name is the default order without q');
  t.ok(new Set(cat.rows.map(title)).size < cat.rows.length, 'the catalog has equal titles, so ties are exercised');
});

t.test('ingredient, ingredient_any and exclude_ingredient match the singular words of one ingredient', async (t) => {
  const uses = (r: Row, name: string) => {
    const want = tokens(name).map(singular);
    return want.length > 0 && r.ingredients.some((i) => want.every((w) => i.words.map(singular).includes(w)));
  };
  const names = [...new Set(cat.rows.flatMap((r) => r.ingredients.map((i) => i.name)))].slice(0, 12);
  for (const name of [...names, 'lentils', 'onions', 'tomatoes']) {
    const want = cat.rows
      .filter((r) => uses(r, name))
      .map((r) => r.id)
      .sort();
    t.same(ids({ ingredient: name, sort: 'name' }).sort(), want, `ingredient=${name}`);
    const not = cat.rows
      .filter((r) => !uses(r, name))
      .map((r) => r.id)
      .sort();
    t.same(ids({ exclude_ingredient: name, sort: 'name' }).sort(), not, `exclude_ingredient=${name}`);
  }
  const any = cat.rows
    .filter((r) => uses(r, 'lentils') || uses(r, 'onion'))
    .map((r) => r.id)
    .sort();
  t.same(ids({ ingredient_any: 'lentils,onion' }).sort(), any, 'ingredient_any');
});

t.test('a metric sort orders by the value (missing last, then id), kids recipes first with kids=true', async (t) => {
  const plain = (key: string, desc: boolean, rows: Row[], kids = false) => {
    const get = METRICS[key] as (r: Row) => number | undefined;
    return [...rows]
      .sort((a, b) => {
        const k = kids ? (b.kidsRecipe ? 1 : 0) - (a.kidsRecipe ? 1 : 0) : 0;
        if (k) return k;
        const x = get(a);
        const y = get(b);
        if (x === undefined || y === undefined) return (x === undefined ? 1 : 0) - (y === undefined ? 1 : 0) || byId(a, b);
        return (desc ? y - x : x - y) || byId(a, b);
      })
      .map((r) => r.id);
  };
  for (const key of ['kcal', 'protein', 'time', 'cost', 'servings', 'protein_density']) {
    t.same(ids({ sort: key }), plain(key, false, cat.rows), `sort=${key}`);
    t.same(ids({ sort: `-${key}` }), plain(key, true, cat.rows), `sort=-${key}`);
  }
  const kidsRows = cat.rows.filter((r) => r.kids.ok);
  t.same(ids({ kids: 'true', sort: '-kcal' }), plain('kcal', true, kidsRows, true), 'kids=true&sort=-kcal');
  t.same(ids({ kids: 'true' }).length, kidsRows.length);
  const q = ids({ q: 'soup', sort: 'time', method: 'simmer,boil' });
  t.ok(q.length > 0, 'a text query with a metric sort finds recipes');
  t.same(
    q,
    plain(
      'time',
      false,
      cat.rows.filter((r) => q.includes(r.id)),
    ),
    'and keeps the metric order',
  );
});

t.test('several ingredient words must all be in one ingredient, not spread over two', async (t) => {
  const uses = (r: Row, name: string) => {
    const want = tokens(name).map(singular);
    return r.ingredients.some((i) => want.every((w) => i.words.map(singular).includes(w)));
  };
  const two = cat.rows.find((r) => r.ingredients.length >= 2 && r.ingredients.some((i) => i.words.length >= 2)) as Row;
  const [a, b] = two.ingredients;
  const spread = `${a?.words[0]} ${b?.words[0]}`;
  const multi = (two.ingredients.find((i) => i.words.length >= 2) as Row['ingredients'][number]).words.join(' ');
  for (const name of [spread, multi]) {
    const want = cat.rows
      .filter((r) => uses(r, name))
      .map((r) => r.id)
      .sort();
    t.same(ids({ ingredient: name }).sort(), want, `ingredient=${name}`);
  }
  t.ok(ids({ ingredient: multi }).includes(two.id), 'a multi-word ingredient name finds its recipe');
});

t.test('a diet filter keeps exactly the rows whose verdict holds, on either basis', async (t) => {
  for (const diet of ['vegetarian', 'vegan', 'halal', 'kosher', 'gluten_free', 'pork_free']) {
    for (const basis of ['any', 'published']) {
      const want = cat.rows
        .filter((r) => dietVerdict(r, diet, basis === 'published').ok)
        .map((r) => r.id)
        .sort();
      t.same(ids({ diet, basis }).sort(), want, `diet=${diet}&basis=${basis}`);
    }
  }
});
