/**
 * Ingredient-name screens of the recipe API (spec §4.5), over the word lists of screen-words.ts: they infer
 * diets, allergens, kid suitability and contradictions of a published diet claim. Every screen works on folded
 * words (no accents, lower case), so "Jalapeño" and "jalapeno" are one word. A screen is an inference, never a
 * guarantee.
 */
import { tokens } from '../../index/search/text.js';
import {
  ALCOHOL,
  ALLERGEN_WORDS,
  ANIMAL_PRODUCTS,
  CAFFEINE,
  CHILLI,
  COMPOUND_WORDS,
  EU_ALLERGENS,
  HOT_TITLE,
  KID_APPEAL,
  KID_COURSES,
  MEAT,
  OFFAL,
  PORK,
  SEAFOOD,
} from './screen-words.js';

export { ALLERGEN_WORDS, EU_ALLERGENS };

export interface Screened {
  /** Folded words of all ingredient names and of the English title. */
  ingredientWords: Set<string>;
  titleWords: Set<string>;
}

export function wordsOf(texts: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const t of texts) for (const w of tokens(t.replace(/_/g, ' '))) out.add(w);
  return out;
}

/** Each screened list as a set, made on first use (the lists are the module's constants below). */
const LIST_SETS = new WeakMap<readonly string[], Set<string>>();

/**
 * The words of `list` that `words` holds, in the list's order. A recipe has a few dozen words and a list may have
 * dozens: the words are looked up in the list's set first, and only a list that has one of them is filtered (most
 * rows match no list of a screen; this ran for every row at every cold start).
 */
function any(words: Set<string>, list: readonly string[]): string[] {
  if (words.size < list.length) {
    let set = LIST_SETS.get(list);
    if (set === undefined) {
      set = new Set(list);
      LIST_SETS.set(list, set);
    }
    let hit = false;
    for (const w of words)
      if (set.has(w)) {
        hit = true;
        break;
      }
    if (!hit) return [];
  }
  return list.filter((w) => words.has(w));
}

/** Ingredient and title words together (rowOf makes it once for the several screens of one row). */
export function allWords(s: Screened): Set<string> {
  const w = new Set(s.ingredientWords);
  for (const x of s.titleWords) w.add(x);
  return w;
}

/** Allergens the ingredient names reveal. */
export function allergensInNames(words: Set<string>): string[] {
  return EU_ALLERGENS.filter((a) => any(words, ALLERGEN_WORDS[a] as readonly string[]).length > 0);
}

export function compoundItems(words: Set<string>): string[] {
  return any(words, COMPOUND_WORDS);
}

export type ScreenDiet =
  | 'vegetarian'
  | 'vegan'
  | 'pescatarian'
  | 'gluten_free'
  | 'nut_free'
  | 'dairy_free'
  | 'egg_free'
  | 'shellfish_free'
  | 'pork_free'
  | 'alcohol_free';
export const SCREEN_DIETS: readonly ScreenDiet[] = [
  'vegetarian',
  'vegan',
  'pescatarian',
  'gluten_free',
  'nut_free',
  'dairy_free',
  'egg_free',
  'shellfish_free',
  'pork_free',
  'alcohol_free',
];

/** The ingredient-name screen of a diet: the words that break it (empty: passes). */
const NOT_VEGETARIAN = [...MEAT, ...SEAFOOD];
const NOT_VEGAN = [...MEAT, ...SEAFOOD, ...ANIMAL_PRODUCTS];
const NUTS = [...(ALLERGEN_WORDS.nuts as string[]), ...(ALLERGEN_WORDS.peanuts as string[])];
const SHELLFISH = [...(ALLERGEN_WORDS.crustaceans as string[]), ...(ALLERGEN_WORDS.molluscs as string[])];
const NOT_HALAL = [...PORK, ...ALCOHOL];

export function screenBreakers(diet: ScreenDiet, s: Screened, all?: Set<string>): string[] {
  const w = all ?? allWords(s);
  switch (diet) {
    case 'vegetarian':
      return any(w, NOT_VEGETARIAN);
    case 'vegan':
      return any(w, NOT_VEGAN);
    case 'pescatarian':
      return any(w, MEAT);
    case 'gluten_free':
      return any(w, ALLERGEN_WORDS.cereals_gluten as string[]);
    case 'nut_free':
      return any(w, NUTS);
    case 'dairy_free':
      return any(w, ALLERGEN_WORDS.milk as string[]);
    case 'egg_free':
      return any(w, ALLERGEN_WORDS.eggs as string[]);
    case 'shellfish_free':
      return any(w, SHELLFISH);
    case 'pork_free':
      return any(w, PORK);
    case 'alcohol_free':
      return any(w, ALCOHOL);
  }
}

/**
 * Words in the title or ingredients that contradict a published claim (a vegetarian claim on "chicken
 * soup"): such a claim is held back for review and the recipe leaves the diet's results.
 */
export function claimConflicts(claim: string, s: Screened, all?: Set<string>): string[] {
  if (claim === 'vegetarian' || claim === 'vegan' || claim === 'pescatarian' || claim === 'pork_free' || claim === 'alcohol_free')
    return screenBreakers(claim, s, all);
  if (claim === 'halal') return any(all ?? allWords(s), NOT_HALAL);
  if (claim === 'gluten_free' || claim === 'nut_free' || claim === 'dairy_free') return screenBreakers(claim, s, all);
  return [];
}

export interface KidsVerdict {
  ok: boolean;
  /** Why not (mild, difficulty, size, appeal). */
  reasons: string[];
  cautions: string[];
}

/** The kids rule: mild (no chilli, alcohol, caffeine or offal), easy or medium, at most 15 ingredients, kid-appealing. */
export function kidsVerdict(
  s: Screened,
  opts: { difficulty?: string; ingredientCount: number; course?: string; kidsRecipe: boolean; allergens: string[] },
  all?: Set<string>,
): KidsVerdict {
  const w = all ?? allWords(s);
  const reasons: string[] = [];
  const hot = [...any(w, CHILLI), ...any(s.titleWords, HOT_TITLE)];
  if (hot.length) reasons.push(`chilli or heat: ${hot.join(', ')}`);
  const alcohol = any(w, ALCOHOL);
  if (alcohol.length) reasons.push(`alcohol: ${alcohol.join(', ')}`);
  const caffeine = any(w, CAFFEINE);
  if (caffeine.length) reasons.push(`caffeine: ${caffeine.join(', ')}`);
  const offal = any(w, OFFAL);
  if (offal.length) reasons.push(`offal: ${offal.join(', ')}`);
  if (!opts.kidsRecipe) {
    if (opts.difficulty !== 'easy' && opts.difficulty !== 'medium') reasons.push(`difficulty ${opts.difficulty ?? 'not stated'}`);
    if (opts.ingredientCount > 15) reasons.push(`${opts.ingredientCount} ingredients (more than 15)`);
    if (!(opts.course && KID_COURSES.has(opts.course)) && any(w, KID_APPEAL).length === 0) reasons.push('not a typical kid favourite');
  }
  const cautions: string[] = [];
  if (w.has('honey')) cautions.push('honey: not for infants under 12 months');
  if (opts.allergens.includes('nuts') || opts.allergens.includes('peanuts'))
    cautions.push('nuts: an allergen and a choking risk for small children');
  if (opts.allergens.includes('sesame')) cautions.push('sesame: a common allergen');
  return { ok: reasons.length === 0, reasons, cautions };
}

const STAPLES = new Set(['salt', 'water', 'oil', 'sugar', 'pepper', 'ice']);
/** Salt, water, oil, sugar and pepper are never counted as missing from a pantry. */
export function isStaple(nameWords: string[]): boolean {
  return nameWords.some((w) => STAPLES.has(w));
}
