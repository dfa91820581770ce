/** Pantry, random, compare, ingredient profile, aggregate, meal plan and shopping list. */

import { sha256Hex } from '../../../core/hash.js';
import { mulberry32 } from '../../../core/random.js';
import { tokens } from '../../index/search/text.js';
import type { Catalog } from '../catalog.js';
import { ApiError, filters, integer, LANG, list, number, oneOf, type Query, str } from '../params.js';
import type { Json, Row } from '../rows.js';
import { DIETS, dietVerdict } from '../select/diets.js';
import { isStaple } from '../select/screens.js';
import { METRICS, select, singular, usesIngredient } from '../select/select.js';
import { brief, DATA_NOTE, langOf } from './present.js';
import type { Operation } from './route-types.js';
import { rowOr404 } from './routes-find.js';

const rand = (seed: string | undefined) =>
  seed !== undefined ? mulberry32(Number.parseInt(sha256Hex(`seed:${seed}`).slice(0, 8), 16)) : Math.random;

function pick<T>(items: T[], n: number, r: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a.slice(0, n);
}

function rowsOf(cat: Catalog, q: Query, min: number, max: number): Row[] {
  const ids = list(q, 'ids');
  if (!ids || ids.length < min || ids.length > max) throw new ApiError(400, 'bad_request', `ids must list ${min} to ${max} recipe ids`);
  return ids.map((id) => rowOr404(cat, id));
}

const r2 = (n: number) => Math.round(n * 100) / 100;
const AGG_GROUPS = [
  'cuisine',
  'course',
  'method',
  'style',
  'difficulty',
  'collection',
  'tag',
  'level',
  'cost_tier',
  'diet',
  'allergen',
] as const;
const AGG_METRICS = [
  'kcal',
  'protein',
  'fat',
  'carbs',
  'fiber',
  'sugar',
  'sodium',
  'time',
  'cost',
  'ingredients',
  'steps',
  'servings',
] as const;

function groupsOf(r: Row, by: (typeof AGG_GROUPS)[number]): string[] {
  switch (by) {
    case 'cuisine':
      return r.cuisine;
    case 'course':
      return r.course ? [r.course] : [];
    case 'method':
      return r.methods;
    case 'style':
      return [r.style];
    case 'difficulty':
      return r.difficulty ? [r.difficulty] : [];
    case 'collection':
      return r.collection ? [r.collection] : [];
    case 'tag':
      return r.tags;
    case 'level':
      return [r.level];
    case 'cost_tier':
      return r.costTier ? [r.costTier] : [];
    case 'diet':
      return DIETS.filter((d) => dietVerdict(r, d).ok);
    case 'allergen':
      return r.allergenInfo.contains;
  }
}

export const TOOL_OPERATIONS: Operation[] = [
  {
    operationId: 'findByPantry',
    method: 'GET',
    path: '/api/pantry',
    summary: 'What can I cook with what I have',
    description:
      'Ranks recipes by how many of their ingredients are covered; salt, water, oil, sugar and pepper never count as missing. Takes every filter.',
    params: [
      { name: 'have', type: 'string', description: 'Comma list of ingredients at hand.', required: true },
      { name: 'max_missing', type: 'integer', description: 'Most missing ingredients allowed (default 3).' },
      { name: 'min_have', type: 'integer', description: 'Fewest matched ingredients (default 1).' },
      ...filters('q', 'ingredient'),
      { name: 'limit', type: 'integer', description: '1 to 25 (default 10).' },
      LANG,
    ],
    run: (cat, q) => {
      const have = list(q, 'have');
      if (!have) throw new ApiError(400, 'bad_request', 'have is required: a comma list of ingredients');
      const maxMissing = integer(q, 'max_missing', 0, 100) ?? 3;
      const minHave = integer(q, 'min_have', 0, 100) ?? 1;
      const limit = integer(q, 'limit', 1, 25) ?? 10;
      const lang = langOf(str(q, 'lang')).code;
      const wanted = have.map((h) => tokens(h).map(singular));
      const scored = select(cat, q).rows.flatMap((r) => {
        const matched: string[] = [];
        const missing: string[] = [];
        for (const i of r.ingredients) {
          const words = i.words.map(singular);
          if (wanted.some((w) => w.length > 0 && w.every((x) => words.includes(x)))) matched.push(i.name);
          else if (!isStaple(words)) missing.push(i.name);
        }
        if (matched.length < minHave || missing.length > maxMissing) return [];
        return [{ r, matched, missing }];
      });
      scored.sort((a, b) => a.missing.length - b.missing.length || b.matched.length - a.matched.length || (a.r.id < b.r.id ? -1 : 1));
      return {
        total: scored.length,
        items: scored.slice(0, limit).map((s) => ({ ...brief(s.r, lang), have: s.matched, missing: s.missing })),
        note: DATA_NOTE,
      };
    },
  },
  {
    operationId: 'randomRecipe',
    method: 'GET',
    path: '/api/random',
    summary: 'Random recipes that match the filters',
    description: 'count 1 to 10; the same seed gives the same pick.',
    params: [
      { name: 'count', type: 'integer', description: '1 to 10 (default 1).' },
      { name: 'seed', type: 'string', description: 'Any text for a repeatable pick.' },
      LANG,
      ...filters(),
    ],
    run: (cat, q) => {
      const count = integer(q, 'count', 1, 10) ?? 1;
      const lang = langOf(str(q, 'lang')).code;
      const rows = select(cat, q).rows;
      return { total: rows.length, items: pick(rows, count, rand(str(q, 'seed'))).map((r) => brief(r, lang)), note: DATA_NOTE };
    },
  },
  {
    operationId: 'compareRecipes',
    method: 'GET',
    path: '/api/compare',
    summary: 'Compare recipes side by side',
    description: 'Nutrition, cost, time and size of 2 to 6 recipes, with the lowest and highest of each.',
    params: [{ name: 'ids', type: 'string', description: 'Comma list of 2 to 6 recipe ids.', required: true }, LANG],
    run: (cat, q) => {
      const rows = rowsOf(cat, q, 2, 6);
      const lang = langOf(str(q, 'lang')).code;
      const extremes: Json = {};
      for (const m of ['kcal', 'protein', 'fat', 'carbs', 'sugar', 'cost', 'time', 'ingredients', 'steps', 'servings']) {
        const get = METRICS[m] as (r: Row) => number | undefined;
        const have = rows.filter((r) => get(r) !== undefined);
        if (!have.length) continue;
        const sorted = [...have].sort((a, b) => (get(a) as number) - (get(b) as number));
        extremes[m] = { lowest: (sorted[0] as Row).id, highest: (sorted[sorted.length - 1] as Row).id };
      }
      return { items: rows.map((r) => brief(r, lang, { full: false })), extremes, note: DATA_NOTE };
    },
  },
  {
    operationId: 'ingredientProfile',
    method: 'GET',
    path: '/api/ingredient',
    summary: 'About an ingredient',
    description: 'How many recipes use it, their cuisines and courses, average kcal, what it is often cooked with, examples.',
    params: [{ name: 'name', type: 'string', description: 'An ingredient, for example lentils.', required: true }],
    run: (cat, q) => {
      const name = str(q, 'name');
      if (!name) throw new ApiError(400, 'bad_request', 'name is required');
      const rows = cat.rows.filter((r) => usesIngredient(r, name));
      const tally = (keys: (r: Row) => string[]) => {
        const m = new Map<string, number>();
        for (const r of rows) for (const k of new Set(keys(r))) m.set(k, (m.get(k) ?? 0) + 1);
        return [...m.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 10)
          .map(([k, count]) => ({ name: k, count }));
      };
      const kcal = rows.map((r) => r.nutrition?.kcal).filter((k): k is number => k !== undefined);
      const want = tokens(name).map(singular);
      return {
        name,
        recipes: rows.length,
        cuisines: tally((r) => r.cuisine),
        courses: tally((r) => (r.course ? [r.course] : [])),
        avg_kcal_per_serving: kcal.length ? r2(kcal.reduce((a, b) => a + b, 0) / kcal.length) : null,
        often_with: tally((r) => r.ingredients.filter((i) => !want.every((w) => i.words.map(singular).includes(w))).map((i) => i.name)),
        examples: rows.slice(0, 5).map((r) => ({ id: r.id, title: r.titles.en ?? r.id, level: r.level })),
      };
    },
  },
  {
    operationId: 'aggregateStats',
    method: 'GET',
    path: '/api/aggregate',
    summary: 'Statistics across the catalog',
    description: 'Count, average, minimum and maximum of a metric per group. Takes every filter.',
    params: [
      { name: 'group_by', type: 'string', description: 'The grouping.', required: true, enum: AGG_GROUPS },
      {
        name: 'metric',
        type: 'string',
        description: 'kcal (default), protein, fat, carbs, fiber, sugar, sodium, time, cost, ingredients, steps, servings.',
      },
      { name: 'order', type: 'string', description: 'asc or desc by average; default by recipe count.' },
      { name: 'limit', type: 'integer', description: 'Most groups (default 50).' },
      ...filters(),
    ],
    run: (cat, q) => {
      const by = oneOf(q, 'group_by', AGG_GROUPS);
      if (!by) throw new ApiError(400, 'bad_request', `group_by is required: one of ${AGG_GROUPS.join(', ')}`);
      const metric = oneOf(q, 'metric', AGG_METRICS) ?? 'kcal';
      const order = oneOf(q, 'order', ['asc', 'desc'] as const);
      const limit = integer(q, 'limit', 1, 500) ?? 50;
      const get = METRICS[metric] as (r: Row) => number | undefined;
      const groups = new Map<string, { count: number; values: number[] }>();
      for (const r of select(cat, q).rows) {
        for (const g of new Set(groupsOf(r, by))) {
          const e = groups.get(g) ?? { count: 0, values: [] };
          e.count++;
          const v = get(r);
          if (v !== undefined) e.values.push(v);
          groups.set(g, e);
        }
      }
      const items = [...groups.entries()].map(([group, e]) => ({
        group,
        count: e.count,
        with_value: e.values.length,
        avg: e.values.length ? r2(e.values.reduce((a, b) => a + b, 0) / e.values.length) : null,
        min: e.values.length ? Math.min(...e.values) : null,
        max: e.values.length ? Math.max(...e.values) : null,
      }));
      const avg = (x: { avg: number | null }) => x.avg ?? (order === 'desc' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY);
      items.sort(
        (a, b) =>
          (order === 'asc' ? avg(a) - avg(b) : order === 'desc' ? avg(b) - avg(a) : b.count - a.count) || (a.group < b.group ? -1 : 1),
      );
      return { group_by: by, metric, items: items.slice(0, limit), note: DATA_NOTE };
    },
  },
  {
    operationId: 'planMeals',
    method: 'GET',
    path: '/api/meal-plan',
    summary: 'Plan a day of meals',
    description: 'Picks dishes (one serving each) close to a daily kcal target; takes filters such as diet. Estimates, not medical advice.',
    params: [
      { name: 'kcal', type: 'number', description: 'Daily target (default 2000).' },
      { name: 'meals', type: 'integer', description: '1 to 5 (default 3).' },
      { name: 'seed', type: 'string', description: 'Any text for a repeatable plan.' },
      ...filters('kcal_min', 'kcal_max'),
    ],
    run: (cat, q) => {
      const target = number(q, 'kcal', 300, 10000) ?? 2000;
      const meals = integer(q, 'meals', 1, 5) ?? 3;
      const r = rand(str(q, 'seed') ?? 'plan');
      const pool = select(cat, q).rows.filter((x) => x.nutrition?.kcal !== undefined);
      const chosen: Row[] = [];
      let total = 0;
      for (let m = 0; m < meals; m++) {
        const per = (target - total) / (meals - m);
        const near = pool
          .filter((x) => !chosen.includes(x))
          .map((x) => ({ x, d: Math.abs((x.nutrition?.kcal as number) - per) }))
          .sort((a, b) => a.d - b.d || (a.x.id < b.x.id ? -1 : 1))
          .slice(0, 5);
        const got = near[Math.floor(r() * near.length)]?.x;
        if (!got) break;
        chosen.push(got);
        total += got.nutrition?.kcal as number;
      }
      return {
        target_kcal: target,
        total_kcal: total,
        meals: chosen.map((x) => ({ ...brief(x, 'en'), servings_to_eat: 1 })),
        diet: list(q, 'diet') ?? [],
        complete: chosen.length === meals,
        note: `${DATA_NOTE} Not medical advice.`,
      };
    },
  },
  {
    operationId: 'shoppingList',
    method: 'GET',
    path: '/api/shopping-list',
    summary: 'Combined shopping list',
    description: 'Merges and scales the ingredients of up to 8 recipes; lines without a parsed quantity are listed as written.',
    params: [
      { name: 'ids', type: 'string', description: 'Comma list of up to 8 recipe ids.', required: true },
      { name: 'servings', type: 'number', description: 'Scale every recipe to this many servings.' },
    ],
    run: (cat, q) => {
      const rows = rowsOf(cat, q, 1, 8);
      const servings = number(q, 'servings', 0.1, 1000);
      const merged = new Map<string, { name: string; qty: number; unit: string; recipes: string[] }>();
      const unparsed: Json[] = [];
      for (const r of rows) {
        const f = servings !== undefined && r.servings ? servings / r.servings : 1;
        for (const i of r.ingredients) {
          if (i.qty === undefined || i.unit === undefined) {
            unparsed.push({ recipe: r.id, name: i.name, text: i.display ?? null });
            continue;
          }
          const key = `${i.name}|${i.unit}`;
          const e = merged.get(key) ?? { name: i.name, qty: 0, unit: i.unit, recipes: [] };
          e.qty += i.qty * f;
          if (!e.recipes.includes(r.id)) e.recipes.push(r.id);
          merged.set(key, e);
        }
      }
      return {
        recipes: rows.map((r) => ({ id: r.id, servings: servings ?? r.servings ?? null })),
        items: [...merged.values()].map((e) => ({ ...e, qty: r2(e.qty) })).sort((a, b) => (a.name < b.name ? -1 : 1)),
        as_written: unparsed,
      };
    },
  },
];
