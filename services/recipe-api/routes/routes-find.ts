/** Search, one recipe, similar recipes, and the listings by method, diet and source (spec §4.5). */

import type { Catalog } from '../catalog.js';
import { ApiError, FILTERS, filters, LANG, number, PAGING, type Param, type Query, str } from '../params.js';
import type { Json, Row } from '../rows.js';
import { DIET_NAMES, dietVerdict, isDiet } from '../select/diets.js';
import { methodName, paging, select, sortRows } from '../select/select.js';
import { brief, DATA_NOTE, langOf, parts, recipeParts } from './present.js';
import type { Operation } from './route-types.js';

const path = (name: string, description: string): Param => ({ name, type: 'string', description, in: 'path', required: true });

/** A paged list answer with `total` and `next_offset`. */
export function listAnswer(cat: Catalog, q: Query, fixed: Parameters<typeof select>[2] = {}, head: Json = {}): Json {
  const sel = select(cat, q, fixed);
  sortRows(sel, q);
  const page = paging(q);
  const lang = langOf(str(q, 'lang'));
  const items = sel.rows
    .slice(page.offset, page.offset + page.limit)
    .map((r) => brief(r, lang.code, { diets: sel.diets, kids: sel.kids, full: page.full }));
  const out: Json = {
    ...head,
    total: sel.rows.length,
    offset: page.offset,
    limit: page.limit,
    next_offset: page.offset + page.limit < sel.rows.length ? page.offset + page.limit : null,
    lang: lang.code,
    ...(lang.fallback ? { lang_note: lang.fallback } : {}),
    note: DATA_NOTE,
    items,
  };
  return out;
}

export function rowOr404(cat: Catalog, id: string | undefined): Row {
  const r = id !== undefined ? cat.byId.get(id) : undefined;
  if (!r) throw new ApiError(404, 'not_found', `no recipe with id ${JSON.stringify(id ?? '')}`);
  return r;
}

function similarity(a: Row, b: Row): number {
  const ai = new Set(a.ingredients.map((i) => i.name));
  const shared = b.ingredients.filter((i) => ai.has(i.name)).length;
  const union = new Set([...ai, ...b.ingredients.map((i) => i.name)]).size || 1;
  let s = (shared / union) * 4;
  if (a.course && a.course === b.course) s += 1;
  if (a.cuisine.some((c) => b.cuisine.includes(c))) s += 1;
  s += a.methods.filter((m) => b.methods.includes(m)).length * 0.5;
  return s;
}

export const FIND_OPERATIONS: Operation[] = [
  {
    operationId: 'searchRecipes',
    method: 'GET',
    path: '/api/search',
    summary: 'Search and filter recipes',
    description: 'Text search tolerant of typos and accents, with every list filter, sort and paging. total counts before limit.',
    params: [...FILTERS, LANG, ...PAGING],
    run: (cat, q) => listAnswer(cat, q),
  },
  {
    operationId: 'getRecipe',
    method: 'GET',
    path: '/api/recipes/{id}',
    summary: 'One recipe, or any combination of its parts',
    description:
      'include is a comma list of summary, ingredients, steps (recipe), nutrition, cost, equipment, notes (history, tips), safety, links (video) or all; servings scales quantities and totals.',
    params: [
      path('id', 'Recipe id.'),
      { name: 'include', type: 'string', description: 'Comma list of parts, or all. Takes precedence over view.' },
      {
        name: 'view',
        type: 'string',
        description: 'A single part.',
        enum: ['summary', 'ingredients', 'steps', 'nutrition', 'cost', 'safety', 'links', 'full'],
      },
      { name: 'servings', type: 'number', description: 'Scale ingredient quantities and totals to this many servings.' },
      LANG,
    ],
    run: (cat, q) => {
      const r = rowOr404(cat, str(q, 'id'));
      const lang = langOf(str(q, 'lang'));
      const servings = number(q, 'servings', 0.1, 1000);
      const out = recipeParts(r, parts(str(q, 'include'), str(q, 'view')), lang.code, servings);
      return { ...out, ...(lang.fallback ? { lang_note: lang.fallback } : {}), note: DATA_NOTE };
    },
  },
  {
    operationId: 'similarRecipes',
    method: 'GET',
    path: '/api/recipes/{id}/similar',
    summary: 'Recipes similar to one',
    description: 'Ranked by shared ingredients, course, cuisine and cooking methods.',
    params: [path('id', 'Recipe id.'), { name: 'limit', type: 'integer', description: '1 to 25 (default 10).' }, LANG],
    run: (cat, q) => {
      const r = rowOr404(cat, str(q, 'id'));
      const { limit } = paging(q);
      const lang = langOf(str(q, 'lang')).code;
      const ranked = cat.rows
        .filter((x) => x !== r)
        .map((x) => ({ x, s: similarity(r, x) }))
        .filter((e) => e.s > 0)
        .sort((a, b) => b.s - a.s || (a.x.id < b.x.id ? -1 : 1))
        .slice(0, limit);
      return {
        id: r.id,
        total: ranked.length,
        items: ranked.map((e) => ({ ...brief(r === e.x ? r : e.x, lang), similarity: Math.round(e.s * 100) / 100 })),
        note: DATA_NOTE,
      };
    },
  },
  {
    operationId: 'recipesByMethod',
    method: 'GET',
    path: '/api/methods/{method}',
    summary: 'All recipes that use a cooking method',
    description: 'Every recipe cooked by one method (names or aliases), with every filter and paging.',
    params: [path('method', 'Method name or alias, for example bake or baking.'), ...filters('method'), LANG, ...PAGING],
    run: (cat, q) => listAnswer(cat, q, { method: str(q, 'method') as string }, { method: methodName(str(q, 'method') ?? '') }),
  },
  {
    operationId: 'recipesByDiet',
    method: 'GET',
    path: '/api/diets/{diet}',
    summary: 'All recipes in a diet category',
    description:
      'Halal, kosher and pareve come only from reviewed claims (a recipe without one is withheld, not "not halal"); the kosher type is read from the claim note. Other diets use a reviewed claim, else the ingredient screen (diet_basis). Never a certification.',
    params: [path('diet', 'halal, kosher, pareve, vegetarian, vegan, gluten_free...'), ...filters('diet'), LANG, ...PAGING],
    run: (cat, q) => {
      const diet = (str(q, 'diet') ?? '').toLowerCase().replace(/[\s-]+/g, '_');
      if (!isDiet(diet)) throw new ApiError(404, 'not_found', `unknown diet ${JSON.stringify(diet)}; see /api/diets`);
      const claimOnly = diet === 'halal' || diet.startsWith('kosher') || diet === 'pareve' || diet === 'parve';
      const withheld = claimOnly ? cat.rows.filter((r) => dietVerdict(r, diet).unassessed).length : 0;
      return listAnswer(
        cat,
        q,
        { diet },
        {
          diet,
          meaning: DIET_NAMES[diet] ?? DIET_NAMES.pareve,
          certification: 'none: an ingredient-based claim or screen, not a certification',
          ...(claimOnly
            ? {
                withheld_unassessed: withheld,
                withheld_note: 'Recipes without a reviewed claim are withheld: unassessed, which is not the same as not compliant.',
              }
            : {}),
        },
      );
    },
  },
  {
    operationId: 'recipesBySource',
    method: 'GET',
    path: '/api/sources/{source}',
    summary: 'All recipes from one source',
    description: 'Only that source (name, part of it, collection id or website), with every filter and paging.',
    params: [path('source', 'Source name, collection id or website.'), ...filters('source'), LANG, ...PAGING],
    run: (cat, q) => listAnswer(cat, q, { source: str(q, 'source') as string }, { source: str(q, 'source') }),
  },
];
