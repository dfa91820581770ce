/**
 * Filtering, sorting and paging of catalog rows by the list parameters of spec §4.5. Each parameter is
 * checked (bad values answer 400) and becomes one predicate; every predicate must hold.
 */

import { sha256Hex } from '../../core/hash.js';
import { mulberry32 } from '../../core/random.js';
import { foldText, tokens } from '../index/text.js';
import type { Catalog } from './catalog.js';
import { dietVerdict, isDiet } from './diets.js';
import { countryCode } from './names.js';
import { ApiError, bool, integer, list, number, oneOf, type Query, str } from './params.js';
import type { Row } from './rows.js';

const METHOD_ALIASES: Record<string, string> = {
  baking: 'bake',
  baked: 'bake',
  oven: 'bake',
  frying: 'fry',
  fried: 'fry',
  'pan-fry': 'fry',
  pan_fry: 'fry',
  saute: 'fry',
  'deep-fry': 'deep_fry',
  deep_frying: 'deep_fry',
  roasting: 'roast',
  roasted: 'roast',
  grilling: 'grill',
  grilled: 'grill',
  bbq: 'grill',
  barbecue: 'grill',
  boiling: 'boil',
  poach: 'boil',
  poached: 'boil',
  simmering: 'simmer',
  stew: 'simmer',
  braise: 'simmer',
  steaming: 'steam',
  steamed: 'steam',
  toasting: 'toast',
  chilling: 'chill',
  chilled: 'chill',
  freezing: 'freeze',
  frozen: 'freeze',
  marinating: 'marinate',
  fermenting: 'ferment',
  'no-cook': 'no_cook',
  nocook: 'no_cook',
  raw: 'no_cook',
};

export function methodName(v: string): string {
  const low = v.trim().toLowerCase().replace(/\s+/g, '_');
  return METHOD_ALIASES[low] ?? METHOD_ALIASES[low.replace(/_/g, '-')] ?? low;
}

/** Does the recipe use an ingredient (folded words of the query all appear in one ingredient name)? */
/** Whether some ingredient of `r` holds every word of `name` (singular forms). */
export function usesIngredient(r: Row, name: string): boolean {
  return ingredientMatcher(name)(r);
}

/** The test of `usesIngredient` for one name, folded once (a list filter runs it on every row). */
export function ingredientMatcher(name: string): (r: Row) => boolean {
  const want = tokens(name).map(singular);
  if (want.length === 0) return () => false;
  return (r) => r.ingredients.some((i) => want.every((w) => singularWords(i).has(w)));
}

const singulars = new WeakMap<Row['ingredients'][number], Set<string>>();

function singularWords(i: Row['ingredients'][number]): Set<string> {
  let set = singulars.get(i);
  if (set === undefined) {
    set = new Set(i.words.map(singular));
    singulars.set(i, set);
  }
  return set;
}

export function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(ches|shes|oes|sses)$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

type Pred = (r: Row) => boolean;

function range(q: Query, min: string, max: string, get: (r: Row) => number | undefined, preds: Pred[]): void {
  const lo = number(q, min);
  const hi = number(q, max);
  if (lo !== undefined) preds.push((r) => (get(r) ?? Number.NaN) >= lo);
  if (hi !== undefined) preds.push((r) => (get(r) ?? Number.NaN) <= hi);
}

export const METRICS: Record<string, (r: Row) => number | undefined> = {
  kcal: (r) => r.nutrition?.kcal,
  protein: (r) => r.nutrition?.protein,
  fat: (r) => r.nutrition?.fat,
  carbs: (r) => r.nutrition?.carbs,
  fiber: (r) => r.nutrition?.fiber,
  sugar: (r) => r.nutrition?.sugar,
  sodium: (r) => r.nutrition?.sodium,
  total_kcal: (r) => (r.nutrition?.kcal !== undefined && r.servings ? r.nutrition.kcal * r.servings : undefined),
  total_protein: (r) => (r.nutrition?.protein !== undefined && r.servings ? r.nutrition.protein * r.servings : undefined),
  protein_density: (r) =>
    r.nutrition?.protein !== undefined && r.nutrition.kcal ? (r.nutrition.protein * 4) / r.nutrition.kcal : undefined,
  cost: (r) => r.costPerServing,
  time: (r) => r.totalMin,
  prep_time: (r) => r.prepMin,
  cook_time: (r) => r.cookMin,
  ingredients: (r) => r.ingredients.length,
  steps: (r) => r.nodeOps.length,
  servings: (r) => r.servings,
};

export interface Selection {
  rows: Row[];
  /** Every row of the catalog (the name order is ranked over it once). */
  all: readonly Row[];
  /** Diets asked for (their basis goes on each row as `diet_basis`). */
  diets: string[];
  kids: boolean;
  scores?: Map<number, number>;
}

/** Apply every filter of `q` (plus `fixed`, from a path such as /api/methods/{method}). */
export function select(cat: Catalog, q: Query, fixed: { method?: string; diet?: string; source?: string } = {}): Selection {
  const preds: Pred[] = [];
  const text = str(q, 'q');
  let scores: Map<number, number> | undefined;
  if (text !== undefined) {
    if (text.length > 200) throw new ApiError(400, 'bad_request', 'q is longer than 200 characters');
    scores = new Map(cat.search.rank(text).map((h) => [h.doc, h.score]));
    const s = scores;
    preds.push((r) => s.has(r.idx));
  }
  const codes = [...(list(q, 'cuisine') ?? []), ...(list(q, 'country') ?? [])].map(countryCode);
  if (codes.length) preds.push((r) => r.cuisine.some((c) => codes.includes(c.toUpperCase())));
  const courses = list(q, 'course')?.map((c) => c.toLowerCase());
  if (courses) preds.push((r) => !!r.course && courses.includes(r.course));
  const tags = list(q, 'tag')?.map(foldText);
  if (tags) preds.push((r) => tags.every((t) => r.tags.some((x) => foldText(x) === t)));
  if (!fixed.method && list(q, 'method')) {
    const any = (list(q, 'method') ?? []).map(methodName);
    preds.push((r) => any.some((m) => r.methods.includes(m)));
  }
  if (fixed.method) {
    const m = methodName(fixed.method);
    preds.push((r) => r.methods.includes(m));
  }
  const style = oneOf(q, 'style', ['hot', 'cold', 'no_cook', 'mixed'] as const);
  if (style) preds.push((r) => r.style === style);
  const ops = list(q, 'operation')?.map((o) => (o.startsWith('cw.op.') ? o : `cw.op.${o.toLowerCase()}`));
  if (ops) preds.push((r) => ops.every((o) => r.ops.includes(o)));
  const equipment = list(q, 'equipment')?.map((e) => foldText(e));
  if (equipment) preds.push((r) => equipment.every((e) => r.equipment.some((x) => foldText(x).includes(e))));
  const basis = oneOf(q, 'basis', ['published', 'any'] as const);
  const publishedOnly = basis === 'published';
  if (publishedOnly) preds.push((r) => r.reviewed);
  // A path parameter (/api/diets/{diet}, /api/methods/{method}) takes the place of the query parameter of that name.
  const diets = [...new Set((fixed.diet ? [fixed.diet] : (list(q, 'diet') ?? [])).map((d) => d.toLowerCase().replace(/[\s-]+/g, '_')))];
  for (const d of diets) {
    if (!isDiet(d)) throw new ApiError(400, 'bad_request', `unknown diet ${JSON.stringify(d)}; see /api/diets`);
    preds.push((r) => dietVerdict(r, d, publishedOnly).ok);
  }
  const allergenFree = list(q, 'allergen_free');
  if (allergenFree) preds.push((r) => !allergenFree.some((a) => r.allergenInfo.contains.includes(a)));
  for (const name of list(q, 'ingredient') ?? []) preds.push(ingredientMatcher(name));
  const anyIng = list(q, 'ingredient_any')?.map(ingredientMatcher);
  if (anyIng) preds.push((r) => anyIng.some((m) => m(r)));
  for (const name of list(q, 'exclude_ingredient') ?? []) {
    const m = ingredientMatcher(name);
    preds.push((r) => !m(r));
  }
  const excludeText = list(q, 'exclude_text')?.flatMap((t) => tokens(t));
  if (excludeText) preds.push((r) => !Object.values(r.titles).some((t) => tokens(t).some((w) => excludeText.includes(w))));
  for (const m of ['kcal', 'protein', 'carbs', 'fat', 'total_kcal', 'total_protein', 'cost', 'time', 'prep_time', 'cook_time'])
    range(q, `${m}_min`, `${m}_max`, METRICS[m] as (r: Row) => number | undefined, preds);
  range(q, 'fiber_min', 'fiber_max', METRICS.fiber as (r: Row) => number | undefined, preds);
  range(q, 'sugar_min', 'sugar_max', METRICS.sugar as (r: Row) => number | undefined, preds);
  range(q, 'sodium_min', 'sodium_max', METRICS.sodium as (r: Row) => number | undefined, preds);
  range(q, 'protein_density_min', 'protein_density_max', METRICS.protein_density as (r: Row) => number | undefined, preds);
  range(q, 'servings_min', 'servings_max', METRICS.servings as (r: Row) => number | undefined, preds);
  range(q, 'serves', 'serves_max', METRICS.servings as (r: Row) => number | undefined, preds);
  const exact = number(q, 'servings_exact');
  if (exact !== undefined) preds.push((r) => r.servings === exact);
  const ingMax = integer(q, 'ingredients_max', 0, 1000);
  if (ingMax !== undefined) preds.push((r) => r.ingredients.length <= ingMax);
  const stepsMax = integer(q, 'steps_max', 0, 1000);
  if (stepsMax !== undefined) preds.push((r) => r.nodeOps.length <= stepsMax);
  const tiers = list(q, 'cost_tier');
  if (tiers) {
    for (const t of tiers)
      if (!['budget', 'mid', 'premium'].includes(t)) throw new ApiError(400, 'bad_request', 'cost_tier values are budget, mid, premium');
    preds.push((r) => !!r.costTier && tiers.includes(r.costTier));
  }
  const difficulty = list(q, 'difficulty');
  if (difficulty) preds.push((r) => !!r.difficulty && difficulty.includes(r.difficulty));
  const level = str(q, 'level')?.toUpperCase();
  if (level) preds.push((r) => r.level === level);
  const collection = str(q, 'collection');
  if (collection) preds.push((r) => r.collection === collection);
  const source = fixed.source ?? str(q, 'source');
  if (source) {
    const s = foldText(source);
    preds.push(
      (r) =>
        r.collection === source ||
        (!!r.sourceName && foldText(r.sourceName).includes(s)) ||
        (!!r.sourceUrl && foldText(r.sourceUrl).includes(s)),
    );
  }
  const categories = list(q, 'category')?.flatMap((c) => tokens(c).map(singular));
  if (categories)
    preds.push((r) =>
      [...r.tags, r.course ?? ''].some((t) =>
        tokens(t)
          .map(singular)
          .some((w) => categories.includes(w)),
      ),
    );
  const hasProtein = bool(q, 'has_protein');
  if (hasProtein !== undefined) preds.push((r) => r.nutrition?.protein !== undefined && r.nutrition.protein > 0 === hasProtein);
  const flags: [string, (r: Row) => boolean][] = [
    ['has_nutrition', (r) => r.nutrition !== undefined],
    ['has_video', (r) => r.videoUrl !== undefined],
    ['has_notes', (r) => r.hasNotes],
    ['has_image', (r) => r.hasImage],
    ['no_allergens', (r) => dietVerdict(r, 'no_allergens').ok],
    ['diabetic_friendly', (r) => r.diabetic.status === 'friendly'],
  ];
  for (const [name, test] of flags) {
    const v = bool(q, name);
    if (v !== undefined) preds.push((r) => test(r) === v);
  }
  const kidsAge = str(q, 'kids_age');
  let kids = bool(q, 'kids') ?? false;
  if (kidsAge !== undefined) {
    kids = true;
    const band = ageBand(kidsAge);
    preds.push((r) => !r.kidsRecipe || band === undefined || r.kidsRecipe.ages === band);
  }
  if (bool(q, 'kids') === false) preds.push((r) => !r.kids.ok);
  if (kids) preds.push((r) => r.kids.ok);
  const rows = cat.rows.filter((r) => preds.every((p) => p(r)));
  return { rows, all: cat.rows, diets, kids, ...(scores ? { scores } : {}) };
}

const ranks = new WeakMap<readonly Row[], Int32Array>();

/**
 * Each row's place in the catalog ordered by English title (localeCompare), equal titles sharing a place:
 * computed once per catalog, so sorting a request's rows by name compares integers, in the same order.
 */
export function nameRanks(all: readonly Row[]): Int32Array {
  let rank = ranks.get(all);
  if (rank !== undefined) return rank;
  const title = (r: Row) => r.titles.en ?? r.id;
  const sorted = [...all].sort((a, b) => title(a).localeCompare(title(b)));
  rank = new Int32Array(all.length);
  sorted.forEach((r, i) => {
    const prev = sorted[i - 1];
    (rank as Int32Array)[r.idx] =
      prev !== undefined && title(prev).localeCompare(title(r)) === 0 ? ((rank as Int32Array)[prev.idx] as number) : i;
  });
  ranks.set(all, rank);
  return rank;
}

function ageBand(v: string): string | undefined {
  if (['3-5', '6-8', '9+'].includes(v)) return v;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 18) throw new ApiError(400, 'bad_request', 'kids_age must be 3-5, 6-8, 9+ or an age in years');
  return n <= 5 ? '3-5' : n <= 8 ? '6-8' : '9+';
}

const SORTS = ['relevance', 'name', 'random', ...Object.keys(METRICS)];

/** Sort in place: `sort` (prefix - for descending; missing values last), else relevance with q, else id. */
export function sortRows(sel: Selection, q: Query): void {
  const raw = str(q, 'sort');
  const desc = raw?.startsWith('-') ?? false;
  const key = raw?.replace(/^-/, '') ?? (sel.scores ? 'relevance' : 'name');
  if (!SORTS.includes(key)) throw new ApiError(400, 'bad_request', `sort must be one of ${SORTS.join(', ')} (prefix - for descending)`);
  const byId = (a: Row, b: Row) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const kidsFirst = (a: Row, b: Row) => (sel.kids ? (b.kidsRecipe ? 1 : 0) - (a.kidsRecipe ? 1 : 0) : 0);
  if (key === 'random') {
    const rand = mulberry32(Number.parseInt(sha256Hex(`sort:${str(q, 'seed') ?? ''}`).slice(0, 8), 16));
    const keyed = new Map(sel.rows.map((r) => [r.idx, rand()]));
    sel.rows.sort((a, b) => kidsFirst(a, b) || (keyed.get(a.idx) as number) - (keyed.get(b.idx) as number));
    return;
  }
  if (key === 'relevance') {
    const s = sel.scores ?? new Map<number, number>();
    sel.rows.sort((a, b) => kidsFirst(a, b) || (s.get(b.idx) ?? 0) - (s.get(a.idx) ?? 0) || byId(a, b));
    return;
  }
  if (key === 'name') {
    const rank = nameRanks(sel.all);
    sel.rows.sort((a, b) => kidsFirst(a, b) || (desc ? -1 : 1) * ((rank[a.idx] as number) - (rank[b.idx] as number)) || byId(a, b));
    return;
  }
  const get = METRICS[key] as (r: Row) => number | undefined;
  sel.rows.sort((a, b) => {
    const k = kidsFirst(a, b);
    if (k) return k;
    const x = get(a);
    const y = get(b);
    if (x === undefined || y === undefined) return (x === undefined ? 1 : 0) - (y === undefined ? 1 : 0) || byId(a, b);
    return (desc ? y - x : x - y) || byId(a, b);
  });
}

export interface Page {
  limit: number;
  offset: number;
  full: boolean;
}

export function paging(q: Query, defaultLimit = 10): Page {
  return {
    limit: integer(q, 'limit', 1, 25) ?? defaultLimit,
    offset: integer(q, 'offset', 0, 1_000_000) ?? 0,
    full: oneOf(q, 'detail', ['brief', 'full'] as const) === 'full',
  };
}
