/**
 * Filtering, sorting and paging of catalog rows by the list parameters of spec §4.5. Each parameter is
 * checked (bad values answer 400) and becomes one predicate; every predicate must hold.
 */

import { sha256Hex } from '../../../core/hash.js';
import { mulberry32 } from '../../../core/random.js';
import { foldText, tokens } from '../../index/search/text.js';
import type { Catalog } from '../catalog.js';
import { ApiError, bool, integer, list, number, oneOf, type Query, str } from '../params.js';
import type { Row } from '../rows.js';
import { dietVerdict, isDiet } from './diets.js';
import { countryCode } from './names.js';
import { singular, singularWords } from './words.js';

export { singular } from './words.js';

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

/** Whether some ingredient of `r` holds every word of `name` (singular forms). */
export function usesIngredient(r: Row, name: string): boolean {
  const want = tokens(name).map(singular);
  return want.length > 0 && r.ingredients.some((i) => want.every((w) => singularWords(i).has(w)));
}

/**
 * The test of `usesIngredient` for one name, folded once, answered from the catalog's word index: a row
 * qualifies only if every word is in its index entry; with several words the one-ingredient rule is then
 * checked on those rows alone.
 */
export function ingredientMatcher(cat: Catalog, name: string): (r: Row) => boolean {
  const want = [...new Set(tokens(name).map(singular))];
  if (want.length === 0) return () => false;
  const sets = want.map((w) => cat.ingredientWords.get(w));
  if (sets.some((s) => s === undefined)) return () => false;
  const [first, ...rest] = (sets as Set<number>[]).sort((a, b) => a.size - b.size);
  if (rest.length === 0) return (r) => (first as Set<number>).has(r.idx);
  const candidates = new Set([...(first as Set<number>)].filter((idx) => rest.every((s) => s.has(idx))));
  return (r) => candidates.has(r.idx) && r.ingredients.some((i) => want.every((w) => singularWords(i).has(w)));
}

type Pred = (r: Row) => boolean;

/** Whether some value of `have` (upper-cased when `upper`) is in `want`; a loop, so no closure per row. */
function someIn(have: readonly string[], want: readonly string[], upper = false): boolean {
  for (let i = 0; i < have.length; i++) if (want.includes(upper ? (have[i] as string).toUpperCase() : (have[i] as string))) return true;
  return false;
}

const dietMasks = new WeakMap<readonly Row[], Map<string, Uint8Array>>();

/** 1 for each row (by `idx`) the diet holds for: worked out once per catalog, diet and basis, then read. */
function dietMask(all: readonly Row[], diet: string, publishedOnly: boolean): Uint8Array {
  let byDiet = dietMasks.get(all);
  if (byDiet === undefined) {
    byDiet = new Map();
    dietMasks.set(all, byDiet);
  }
  const key = publishedOnly ? `${diet}+published` : diet;
  let mask = byDiet.get(key);
  if (mask === undefined) {
    mask = new Uint8Array(all.length);
    for (const r of all) mask[r.idx] = dietVerdict(r, diet, publishedOnly).ok ? 1 : 0;
    byDiet.set(key, mask);
  }
  return mask;
}

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
  if (codes.length) preds.push((r) => someIn(r.cuisine, codes, true));
  const courses = list(q, 'course')?.map((c) => c.toLowerCase());
  if (courses) preds.push((r) => !!r.course && courses.includes(r.course));
  const tags = list(q, 'tag')?.map(foldText);
  if (tags) preds.push((r) => tags.every((t) => r.tags.some((x) => foldText(x) === t)));
  if (!fixed.method && list(q, 'method')) {
    const any = (list(q, 'method') ?? []).map(methodName);
    preds.push((r) => someIn(r.methods, any));
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
    const ok = dietMask(cat.rows, d, publishedOnly);
    preds.push((r) => ok[r.idx] === 1);
  }
  const allergenFree = list(q, 'allergen_free');
  if (allergenFree) preds.push((r) => !allergenFree.some((a) => r.allergenInfo.contains.includes(a)));
  for (const name of list(q, 'ingredient') ?? []) preds.push(ingredientMatcher(cat, name));
  const anyIng = list(q, 'ingredient_any')?.map((name) => ingredientMatcher(cat, name));
  if (anyIng) preds.push((r) => anyIng.some((m) => m(r)));
  for (const name of list(q, 'exclude_ingredient') ?? []) {
    const m = ingredientMatcher(cat, name);
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
  // A plain loop: no closure per row (a listing visits every row of the catalog on each request).
  const rows: Row[] = [];
  const all = cat.rows;
  const n = preds.length;
  next: for (let i = 0; i < all.length; i++) {
    const r = all[i] as Row;
    for (let k = 0; k < n; k++) if (!(preds[k] as Pred)(r)) continue next;
    rows.push(r);
  }
  return { rows, all: cat.rows, diets, kids, ...(scores ? { scores } : {}) };
}

const ranks = new WeakMap<readonly Row[], Int32Array>();

/**
 * Each row's place in the catalog ordered by English title (localeCompare), equal titles sharing a place:
 * computed once per catalog, so ordering by name compares integers, in the same order.
 */
export function nameRanks(all: readonly Row[]): Int32Array {
  let rank = ranks.get(all);
  if (rank !== undefined) return rank;
  const title = (r: Row) => r.titles.en ?? r.id;
  // localeCompare(x) is `new Intl.Collator().compare`; one collator for the whole sort costs a fifth of the time.
  const collator = new Intl.Collator();
  const sorted = [...all].sort((a, b) => collator.compare(title(a), title(b)));
  rank = new Int32Array(all.length);
  sorted.forEach((r, i) => {
    const prev = sorted[i - 1];
    (rank as Int32Array)[r.idx] =
      prev !== undefined && collator.compare(title(prev), title(r)) === 0 ? ((rank as Int32Array)[prev.idx] as number) : i;
  });
  ranks.set(all, rank);
  return rank;
}

const byId = (a: Row, b: Row) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The comparator of one sort key and direction over the whole catalog (missing values last, then id). */
function comparator(all: readonly Row[], key: string, desc: boolean): (a: Row, b: Row) => number {
  if (key === 'name') {
    const rank = nameRanks(all);
    return (a, b) => (desc ? -1 : 1) * ((rank[a.idx] as number) - (rank[b.idx] as number)) || byId(a, b);
  }
  const get = METRICS[key] as (r: Row) => number | undefined;
  return (a, b) => {
    const x = get(a);
    const y = get(b);
    if (x === undefined || y === undefined) return (x === undefined ? 1 : 0) - (y === undefined ? 1 : 0) || byId(a, b);
    return (desc ? y - x : x - y) || byId(a, b);
  };
}

const orders = new WeakMap<readonly Row[], Map<string, readonly Row[]>>();

/**
 * The whole catalog in the order of one sort key and direction, sorted once per catalog and kept: a request
 * then takes its rows in that order in one pass instead of sorting them (a listing can hold most of the catalog).
 */
export function catalogOrder(all: readonly Row[], key: string, desc: boolean): readonly Row[] {
  let byKey = orders.get(all);
  if (byKey === undefined) {
    byKey = new Map();
    orders.set(all, byKey);
  }
  const name = `${desc ? '-' : ''}${key}`;
  let order = byKey.get(name);
  if (order === undefined) {
    order = [...all].sort(comparator(all, key, desc));
    byKey.set(name, order);
  }
  return order;
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
  // Name and metric sorts: the selected rows, taken in the catalog's kept order (then kids recipes first).
  const chosen = new Uint8Array(sel.all.length);
  for (const r of sel.rows) chosen[r.idx] = 1;
  const ordered = catalogOrder(sel.all, key, desc).filter((r) => chosen[r.idx] === 1);
  sel.rows = sel.kids ? [...ordered.filter((r) => r.kidsRecipe), ...ordered.filter((r) => !r.kidsRecipe)] : ordered;
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
