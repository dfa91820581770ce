/** The precomputed structures behind list requests give the answers the plain definitions give. */
import t from 'tap';
import { writeCatalog } from '../catalog/generate.js';
import { tokens } from '../index/text.js';
import { loadCatalog } from './catalog.js';
import { listAnswer } from './routes-find.js';
import type { Row } from './rows.js';
import { singular } from './select.js';

type J = Record<string, unknown>;

const dir = t.testdir();
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
