/**
 * rowOf's shortcuts against the plain definitions they stand for (rows.ts): the ingredient words taken from the
 * catalog's words of each name, and one word set shared by a row's screens, give what folding every name again
 * and letting each screen make its own set gives. Over the reference's catalog recipes and generated ones.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { generateCatalog } from '../catalog/generate.js';
import { type Json, rowOf, Strings } from './rows.js';
import { claimConflicts, kidsVerdict, wordsOf } from './select/screens.js';
import { CATALOG_SOURCES } from './test-helpers.js';

const docs: Json[] = [];
for (const dir of CATALOG_SOURCES)
  for (const n of readdirSync(dir).filter((f) => f.endsWith('.json'))) docs.push(JSON.parse(readFileSync(join(dir, n), 'utf8')) as Json);
for (const f of generateCatalog(300, 'rows-shortcuts', 'catalog')) docs.push(JSON.parse(f.text) as Json);

t.test('ingredient words and screens as the plain definitions give them, word order included', async (t) => {
  const strings = new Strings();
  let claims = 0;
  for (const [i, doc] of docs.entries()) {
    const row = rowOf(doc, i, strings);
    const names = row.ingredients.map((x) => x.name);
    if ([...row.screened.ingredientWords].join(' ') !== [...wordsOf(names)].join(' ')) {
      t.fail(`${row.id}: ingredient words ${[...row.screened.ingredientWords]} against ${[...wordsOf(names)]}`);
      continue;
    }
    const held = [...row.claims.values()].flatMap((c) => {
      const conflicts = claimConflicts(c.claim, row.screened);
      return conflicts.length ? [{ claim: c.claim, conflicts }] : [];
    });
    claims += row.claims.size;
    t.same(row.heldBack, held, `${row.id}: claims held back`);
    const dish = (doc.dish ?? {}) as Json;
    const kids = kidsVerdict(row.screened, {
      ...(typeof dish.difficulty === 'string' ? { difficulty: dish.difficulty } : {}),
      ingredientCount: row.ingredients.length,
      ...(typeof dish.course === 'string' ? { course: dish.course } : {}),
      kidsRecipe: doc['x-kids'] !== undefined,
      allergens: row.allergenInfo.contains,
    });
    t.same(row.kids, kids, `${row.id}: the kids verdict`);
  }
  t.ok(docs.length > 300 && claims > 300, `${docs.length} recipes, ${claims} claims screened`);
});
