/**
 * Ingredient words for the list filters: the singular form of a word, and the catalog's inverted index from
 * each singular ingredient word to the rows with an ingredient that holds it, built once at load, so that
 * `ingredient=`, `ingredient_any=` and `exclude_ingredient=` look rows up instead of scanning every
 * ingredient of every recipe on each request.
 */
import type { Row } from '../rows.js';

export function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(ches|shes|oes|sses)$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

const singulars = new WeakMap<readonly string[], Set<string>>();

/** The singular words of one ingredient name (computed once per word list, which rows share by name). */
export function singularWords(i: Row['ingredients'][number]): Set<string> {
  let set = singulars.get(i.words);
  if (set === undefined) {
    set = new Set(i.words.map(singular));
    singulars.set(i.words, set);
  }
  return set;
}

/** Singular ingredient word → the rows (by `idx`) that have an ingredient holding that word. */
export type IngredientWordIndex = Map<string, Set<number>>;

export function ingredientWordIndex(rows: readonly Row[]): IngredientWordIndex {
  const index: IngredientWordIndex = new Map();
  for (const r of rows) {
    for (const i of r.ingredients) {
      for (const w of singularWords(i)) {
        let set = index.get(w);
        if (set === undefined) {
          set = new Set();
          index.set(w, set);
        }
        set.add(r.idx);
      }
    }
  }
  return index;
}
