/**
 * The hub's own recipes as a searchable catalog, reusing the index's pure search and match code
 * (services/index: entry facts, the typo/accent/Arabic-tolerant SearchIndex, matchKitchen, planPreview).
 * Recalls come from the executor's recalls table: a recalled revision never matches.
 */
import { type Catalog, catalogOf, type RecallItem } from '../../../services/index/catalog.js';
import { type Json, recipeFacts } from '../../../services/index/entry.js';
import type { RecipeCatalog } from '../../config/recipes.js';

export function hubCatalog(recipes: RecipeCatalog, recalled: (id: string, hash: string) => boolean): Catalog {
  const docs = new Map<string, Json>();
  const facts = recipes.list().map((e) => {
    docs.set(e.id, e.doc);
    return recipeFacts({ ...e.doc, id: e.id, hash: e.hash });
  });
  const recalls: RecallItem[] = facts
    .filter((f) => recalled(f.id, f.hash))
    .map((f) => ({ id: f.id, hash: f.hash, severity: 'block', message: 'recalled' }));
  return catalogOf('hub', docs, facts, recalls);
}

/**
 * The catalog, rebuilt only when the recipes or the recalls change (the hub builds an MCP server per request;
 * synced recipes may arrive at any time).
 */
export function cachedHubCatalog(recipes: RecipeCatalog, recalled: (id: string, hash: string) => boolean): () => Catalog {
  let key = '';
  let current: Catalog | undefined;
  return () => {
    const list = recipes.list();
    const k = list.map((e) => `${e.id}@${e.hash}:${recalled(e.id, e.hash) ? 1 : 0}`).join(',');
    if (!current || k !== key) {
      current = hubCatalog(recipes, recalled);
      key = k;
    }
    return current;
  };
}
