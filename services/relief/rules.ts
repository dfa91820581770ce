/**
 * The rules a relief coordinator applies before it allocates a pledge to a need (pure; runtime/hub/relief/relief.ts
 * keeps the records). Allergens: what a pledge's food declares (the pledge's or an item's `allergens`) and what
 * its item names reveal (the recipe API's ingredient-name screen, services/recipe-api/select/screens.ts); any of them
 * that the need avoids refuses the pledge. Dietary requirements: met by a claim (the pledge's or the item's
 * `dietary`), or, for the diets a name screen can judge (vegetarian, vegan, gluten_free, nut_free…), by item
 * names that show nothing breaking it; halal and kosher without a claim only for plain produce (no meat, fish,
 * alcohol or compound item in the name). Anything else needs the claim. Quantities: a need wants people ×
 * mealsPerDay meals; a capacity pledge provides mealsPerHour × its hours, a meals pledge its portions, a food
 * pledge its items' quantities (and meals only when it declares portions).
 */
import type { Json } from '../index/entry.js';
import { allergensInNames, compoundItems, SCREEN_DIETS, type ScreenDiet, screenBreakers, wordsOf } from '../recipe-api/select/screens.js';

export interface Window {
  from: string;
  to: string;
}
export interface Qty {
  value: number;
  unit: string;
}
export interface PledgeItem {
  ingredientId?: string;
  name?: string;
  qty: Qty;
  useBy?: string;
  allergens?: string[];
  dietary?: string[];
}
export interface NeedDoc {
  id: string;
  program: string;
  window: Window;
  people: number;
  mealsPerDay?: number;
  dietary?: string[];
  allergensToAvoid?: string[];
  status?: string;
  [k: string]: unknown;
}
export interface PledgeDoc {
  id: string;
  from: string;
  kind: string;
  items?: PledgeItem[];
  portions?: number;
  capacity?: { mealsPerHour?: number; hours?: string[]; kitchen?: string };
  allergens?: string[];
  dietary?: string[];
  available: Window;
  [k: string]: unknown;
}

/** What remains of a pledge: meals (capacity, portions) and the quantity of each item (by ingredient id or name). */
export interface Remaining {
  meals?: number;
  items?: { key: string; qty: Qty }[];
}

/** A small amount of floating-point slack when quantities are compared. */
export const EPSILON = 1e-9;

/** Nothing of a pledge that offered a quantity (meals or items) remains. */
export function exhausted(r: Remaining): boolean {
  return (r.meals !== undefined || r.items !== undefined) && (r.meals ?? 0) === 0 && (r.items ?? []).every((i) => i.qty.value <= EPSILON);
}

/** A recipe of an allocation's production menu, as the coordinator's catalog holds it. */
export interface MenuRecipe {
  recipeId: string;
  /** EU allergens it contains or may contain. */
  allergens: string[];
  /** Dietary claims it makes (halal, vegan…). */
  dietary: string[];
}

/** Why a pledge does not meet a need (the problem `relief-mismatch` carries these members). */
export interface Mismatch {
  reason: 'allergen' | 'dietary' | 'window';
  detail: string;
  extra: Json;
}

/** Common names of the EU allergens → the screen's keys. */
const ALLERGEN_ALIASES: Record<string, string> = {
  peanut: 'peanuts',
  nut: 'nuts',
  tree_nuts: 'nuts',
  tree_nut: 'nuts',
  treenuts: 'nuts',
  gluten: 'cereals_gluten',
  wheat: 'cereals_gluten',
  cereals: 'cereals_gluten',
  dairy: 'milk',
  lactose: 'milk',
  egg: 'eggs',
  soy: 'soybeans',
  soya: 'soybeans',
  soybean: 'soybeans',
  sesame_seeds: 'sesame',
  shellfish: 'crustaceans',
  crustacean: 'crustaceans',
  mollusc: 'molluscs',
  mollusk: 'molluscs',
  molluscs_shellfish: 'molluscs',
  sulfites: 'sulphites',
  sulphur_dioxide: 'sulphites',
};

/** `cw.allergen.Peanut`, `peanut`, `Peanuts` → `peanuts`. */
export function allergenKey(word: string): string {
  const w = word
    .toLowerCase()
    .replace(/^(cw|x-[a-z0-9-]+)\.allergen\./, '')
    .replace(/-/g, '_');
  return ALLERGEN_ALIASES[w] ?? w;
}

/** `gluten-free`, `Halal` → `gluten_free`, `halal`. */
export function dietKey(word: string): string {
  return word.toLowerCase().replace(/-/g, '_');
}

/** The name of an item as words can be read from it: its `name`, else its ingredient id without the vocabulary prefix. */
export function itemName(i: { ingredientId?: string; name?: string }): string {
  if (i.name !== undefined) return i.name;
  return (i.ingredientId ?? '').replace(/^(cw|x-[a-z0-9-]+)\.(ing\.)?/, '').replace(/[._]/g, ' ');
}

export function itemKey(i: { ingredientId?: string; name?: string }): string {
  return i.ingredientId ?? i.name ?? '';
}

const HOURS = /^([0-9]{2}):([0-9]{2})-([0-9]{2}):([0-9]{2})$/;

/** Hours of a capacity pledge: its `capacity.hours` ranges, else its availability window. */
export function capacityHours(p: PledgeDoc): number {
  const ranges = p.capacity?.hours ?? [];
  if (ranges.length > 0) {
    let h = 0;
    for (const r of ranges) {
      const m = HOURS.exec(r);
      if (!m) continue;
      const from = Number(m[1]) * 60 + Number(m[2]);
      const to = Number(m[3]) * 60 + Number(m[4]);
      h += (to > from ? to - from : to + 24 * 60 - from) / 60;
    }
    return h;
  }
  return Math.max(0, (Date.parse(p.available.to) - Date.parse(p.available.from)) / 3_600_000);
}

/** Meals a need wants in all: people × meals per day. */
export function mealsNeeded(n: NeedDoc): number {
  return n.people * (n.mealsPerDay ?? 1);
}

/** What a new pledge offers to allocate. */
export function initialRemaining(p: PledgeDoc): Remaining {
  const out: Remaining = {};
  if (p.kind === 'kitchen_capacity' || p.kind === 'robot_capacity')
    out.meals = Math.floor((p.capacity?.mealsPerHour ?? 0) * capacityHours(p));
  else if (p.portions !== undefined) out.meals = p.portions;
  if (p.items) out.items = p.items.map((i) => ({ key: itemKey(i), qty: { ...i.qty } }));
  return out;
}

/** Does the pledge carry food (whose allergens and diets matter)? */
export function carriesFood(p: PledgeDoc): boolean {
  return p.items !== undefined || ['food', 'surplus_food', 'meals'].includes(p.kind);
}

const uniq = (xs: string[]) => [...new Set(xs)];

/** The allergens of each item of a pledge: declared (pledge and item) and revealed by the item's name. */
export function pledgeAllergens(p: PledgeDoc): { item: string; allergens: string[] }[] {
  const declared = (p.allergens ?? []).map(allergenKey);
  return (p.items ?? []).map((i) => ({
    item: itemKey(i),
    allergens: uniq([...declared, ...(i.allergens ?? []).map(allergenKey), ...allergensInNames(wordsOf([itemName(i)]))]),
  }));
}

const isScreenDiet = (d: string): d is ScreenDiet => (SCREEN_DIETS as readonly string[]).includes(d);

/** Words of an item's name that break diet `d`, or null when only a claim can meet it. */
function dietBreakers(d: string, name: string): string[] | null {
  const words = wordsOf([name]);
  const s = { ingredientWords: words, titleWords: new Set<string>() };
  if (isScreenDiet(d)) return screenBreakers(d, s);
  if (d === 'halal' || d === 'kosher')
    return uniq([...screenBreakers('vegetarian', s), ...screenBreakers('alcohol_free', s), ...compoundItems(words)]);
  return null;
}

/** Why `p` does not meet `n` (allergens, dietary requirements, time), or undefined when it does. */
export function mismatch(n: NeedDoc, p: PledgeDoc): Mismatch | undefined {
  if (Date.parse(p.available.from) >= Date.parse(n.window.to))
    return {
      reason: 'window',
      detail: `pledge ${p.id} is available from ${p.available.from}, after the need's window ends (${n.window.to})`,
      extra: { available: { ...p.available }, window: { ...n.window } },
    };
  if (!carriesFood(p)) return undefined;
  const late = (p.items ?? []).filter((i) => i.useBy !== undefined && Date.parse(i.useBy) <= Date.parse(n.window.from));
  if (late.length > 0)
    return {
      reason: 'window',
      detail: `pledge ${p.id}: ${late.map((i) => `${itemKey(i)} (use by ${i.useBy})`).join(', ')} must be used before the need's window opens (${n.window.from})`,
      extra: { items: late.map(itemKey), window: { ...n.window } },
    };
  const avoid = (n.allergensToAvoid ?? []).map(allergenKey);
  if (avoid.length > 0) {
    if ((p.items ?? []).length === 0 && p.allergens === undefined)
      return {
        reason: 'allergen',
        detail: `pledge ${p.id} names no items and declares no allergens; the need avoids ${avoid.join(', ')}`,
        extra: { allergens: [], avoided: avoid, items: [] },
      };
    const hits = pledgeAllergens(p)
      .map((x) => ({ item: x.item, allergens: x.allergens.filter((a) => avoid.includes(a)) }))
      .filter((x) => x.allergens.length > 0);
    const declaredHit = (p.allergens ?? []).map(allergenKey).filter((a) => avoid.includes(a));
    const found = uniq([...declaredHit, ...hits.flatMap((x) => x.allergens)]);
    if (found.length > 0)
      return {
        reason: 'allergen',
        detail: `pledge ${p.id} contains ${found.join(', ')}, which the need avoids${hits.length > 0 ? ` (${hits.map((x) => `${x.item}: ${x.allergens.join(', ')}`).join('; ')})` : ''}`,
        extra: { allergens: found, avoided: avoid, items: hits.map((x) => x.item) },
      };
  }
  for (const d of (n.dietary ?? []).map(dietKey)) {
    const claimed = (p.dietary ?? []).map(dietKey).includes(d);
    if (claimed) continue;
    const items = p.items ?? [];
    const failing: { item: string; breakers: string[] }[] = [];
    for (const i of items) {
      if ((i.dietary ?? []).map(dietKey).includes(d)) continue;
      const b = dietBreakers(d, itemName(i));
      if (b === null || b.length > 0) failing.push({ item: itemKey(i), breakers: b ?? [] });
    }
    if (items.length === 0 || failing.length > 0)
      return {
        reason: 'dietary',
        detail:
          items.length === 0
            ? `pledge ${p.id} does not claim ${d} and names no items to check`
            : `pledge ${p.id} does not meet ${d}: ${failing.map((f) => (f.breakers.length > 0 ? `${f.item} (${f.breakers.join(', ')})` : `${f.item} (no ${d} claim)`)).join(', ')}`,
        extra: { dietary: d, items: failing.map((f) => f.item), breakers: uniq(failing.flatMap((f) => f.breakers)) },
      };
  }
  return undefined;
}

const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const objOf = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

/** A recipe document's allergens (`allergensEU`, or `safety.allergens.eu14` and `mayContain`) and dietary claims. */
export function menuRecipe(doc: Json): MenuRecipe {
  const safety = objOf(doc.safety);
  const allergens = objOf(safety.allergens);
  const claims = [...(Array.isArray(safety.dietary) ? safety.dietary : []), ...(Array.isArray(doc.dietary) ? doc.dietary : [])]
    .map((c) => (typeof c === 'string' ? c : objOf(c).claim))
    .filter((c): c is string => typeof c === 'string');
  return {
    recipeId: String(doc.id),
    allergens: uniq([...strs(doc.allergensEU), ...strs(allergens.eu14), ...strs(allergens.mayContain)].map(allergenKey)),
    dietary: uniq(claims.map(dietKey)),
  };
}

/**
 * Why a production menu does not meet `n`: a recipe that contains (or may contain) an allergen the need avoids,
 * or that does not claim one of its dietary requirements (a recipe is judged by its claims, not a screen).
 */
export function menuMismatch(n: NeedDoc, menu: readonly MenuRecipe[]): Mismatch | undefined {
  const avoid = (n.allergensToAvoid ?? []).map(allergenKey);
  for (const r of menu) {
    const hit = r.allergens.filter((a) => avoid.includes(a));
    if (hit.length > 0)
      return {
        reason: 'allergen',
        detail: `recipe ${r.recipeId} of the production menu contains ${hit.join(', ')}, which the need avoids`,
        extra: { recipe: r.recipeId, allergens: hit, avoided: avoid },
      };
    const missing = (n.dietary ?? []).map(dietKey).filter((d) => !r.dietary.includes(d));
    if (missing.length > 0)
      return {
        reason: 'dietary',
        detail: `recipe ${r.recipeId} of the production menu does not claim ${missing.join(', ')}`,
        extra: { recipe: r.recipeId, dietary: missing[0] as string, missing },
      };
  }
  return undefined;
}
