/**
 * Diet verdicts (spec §4.5): halal and kosher only from a reviewed claim (never a screen, never "not halal");
 * the kosher type from the claim note; vegetarian, vegan, gluten-free, nut-free, dairy-free and lactose-free
 * from a reviewed claim where the recipe was reviewed, else the ingredient-name screen (`diet_basis`).
 * A claim held back for review (title or ingredients contradict it) counts for nothing.
 */
import { kosherType, type Row } from '../rows.js';
import { SCREEN_DIETS, type ScreenDiet, screenBreakers } from './screens.js';

export type DietBasis = 'published' | 'inferred';

export interface DietVerdict {
  ok: boolean;
  basis?: DietBasis;
  /** For halal/kosher: the recipe has no usable claim; withheld, not "not halal". */
  unassessed?: boolean;
  kosher_type?: string;
  note?: string;
}

/** Claims a reviewer assesses: where the recipe was reviewed, the absence of one means it does not hold. */
const REVIEWED = new Set(['vegetarian', 'vegan', 'gluten_free', 'nut_free', 'dairy_free', 'lactose_free']);

export const DIET_NAMES: Record<string, string> = {
  vegetarian: 'No meat, poultry or fish.',
  vegan: 'No animal products.',
  pescatarian: 'No meat or poultry; fish allowed (screen).',
  halal: 'Halal-friendly by a reviewed claim; not a certification.',
  kosher: 'Kosher-style by a reviewed claim (meat, dairy or pareve from its note); not a certification.',
  kosher_meat: 'Kosher-style, meat.',
  kosher_dairy: 'Kosher-style, dairy.',
  kosher_pareve: 'Kosher-style, pareve.',
  pareve: 'Kosher-style, pareve (neither meat nor dairy).',
  gluten_free: 'No gluten found.',
  nut_free: 'No nuts or peanuts found.',
  dairy_free: 'No milk or dairy found.',
  lactose_free: 'No milk product found.',
  egg_free: 'No eggs found (screen).',
  shellfish_free: 'No crustaceans or molluscs found (screen).',
  pork_free: 'No pork found (screen).',
  alcohol_free: 'No alcohol found (screen).',
  no_allergens: 'No major allergen declared or in the ingredient names.',
  diabetic_friendly: 'diabetic.status friendly (an estimate).',
};

export const DIETS = Object.keys(DIET_NAMES);

function usable(r: Row, claim: string) {
  const c = r.claims.get(claim);
  if (!c || r.heldBack.some((h) => h.claim === claim)) return undefined;
  return c;
}

const verdicts = new WeakMap<Row, Map<string, Readonly<DietVerdict>>>();

/**
 * The verdict of one diet on one recipe. Rows do not change after load, so each (row, diet, basis) verdict is
 * worked out once and kept: a listing filtered by diet then reads it instead of re-screening every row.
 */
export function dietVerdict(r: Row, diet: string, publishedOnly = false): Readonly<DietVerdict> {
  if (!isDiet(diet)) return computeVerdict(r, diet, publishedOnly);
  let byDiet = verdicts.get(r);
  if (byDiet === undefined) {
    byDiet = new Map();
    verdicts.set(r, byDiet);
  }
  const key = publishedOnly ? `${diet}+published` : diet;
  let v = byDiet.get(key);
  if (v === undefined) {
    v = Object.freeze(computeVerdict(r, diet, publishedOnly));
    byDiet.set(key, v);
  }
  return v;
}

function computeVerdict(r: Row, diet: string, publishedOnly: boolean): DietVerdict {
  const d = diet === 'kosher_parve' || diet === 'parve' ? 'pareve' : diet;
  if (d === 'halal') {
    const c = usable(r, 'halal');
    return c ? { ok: true, basis: 'published', ...(c.note ? { note: c.note } : {}) } : { ok: false, unassessed: true };
  }
  if (d === 'kosher' || d === 'kosher_meat' || d === 'kosher_dairy' || d === 'kosher_pareve' || d === 'pareve') {
    const c = usable(r, 'kosher');
    if (!c) return { ok: false, unassessed: true };
    const type = kosherType(c);
    const want = d === 'kosher' ? undefined : d.replace('kosher_', '');
    const ok = want === undefined || type === want;
    return { ok, basis: 'published', ...(type ? { kosher_type: type } : {}), ...(c.note ? { note: c.note } : {}) };
  }
  if (d === 'no_allergens')
    return {
      ok: r.allergenInfo.contains.length === 0 && r.allergenInfo.status !== 'not_assessed',
      basis: r.reviewed ? 'published' : 'inferred',
    };
  if (d === 'diabetic_friendly')
    return { ok: r.diabetic.status === 'friendly', basis: r.diabetic.basis === 'published' ? 'published' : 'inferred' };
  if (REVIEWED.has(d) && r.reviewed) return { ok: usable(r, d) !== undefined, basis: 'published' };
  if (d === 'pescatarian' && r.reviewed && usable(r, 'vegetarian')) return { ok: true, basis: 'published' };
  if (publishedOnly) return { ok: false };
  const screen = (d === 'lactose_free' ? 'dairy_free' : d) as ScreenDiet;
  if (!(SCREEN_DIETS as readonly string[]).includes(screen)) return { ok: false };
  const breakers = screenBreakers(screen, r.screened);
  return { ok: breakers.length === 0, basis: 'inferred', ...(breakers.length ? { note: `ingredient names: ${breakers.join(', ')}` } : {}) };
}

const DIET_SET = new Set([...DIETS, 'parve', 'kosher_parve']);

export function isDiet(d: string): boolean {
  return DIET_SET.has(d);
}
