/**
 * The catalog an index serves, as data: its recipes, their facts, the search index over them and the recalls
 * in force. Pure (no file I/O): the index loads one from a built directory (store.ts), the hub builds one from
 * its own recipes (runtime/hub/planning/catalog.ts), and match.ts reads either.
 */
import type { Json, RecipeFacts } from './entry.js';
import { SearchIndex } from './search/search.js';

/** One recall: the recipe `id`, every revision of it or only the one with `hash`. */
export interface RecallItem {
  id: string;
  hash?: string;
  severity: string;
  message: string;
}

export interface Catalog {
  version: string;
  docs: Map<string, Json>;
  facts: RecipeFacts[];
  search: SearchIndex;
  recalls: RecallItem[];
}

/** A catalog of `facts` (with their documents in `docs`), searchable. */
export function catalogOf(version: string, docs: Map<string, Json>, facts: RecipeFacts[], recalls: RecallItem[]): Catalog {
  return { version, docs, facts, search: new SearchIndex(facts), recalls };
}

/** One recipe of the catalog, its document and its facts, or undefined when the catalog does not hold it. */
export function recipeOf(cat: Catalog, id: string): { doc: Json; facts: RecipeFacts } | undefined {
  const doc = cat.docs.get(id);
  const facts = cat.facts.find((f) => f.id === id);
  return doc && facts ? { doc, facts } : undefined;
}

/** True when `recall` covers this revision of a recipe. */
export function isRecalled(recalls: readonly RecallItem[], id: string, hash: string): boolean {
  return recalls.some((r) => r.id === id && (r.hash === undefined || r.hash === hash));
}

/** Flag the entries a recall covers (they stay findable, but a hub refuses them). */
export function markRecalled<T extends { id: string; hash: string; recalled?: boolean }>(cat: Catalog, items: T[]): T[] {
  if (cat.recalls.length === 0) return items;
  return items.map((e) => (isRecalled(cat.recalls, e.id, e.hash) ? { ...e, recalled: true } : e));
}
