/**
 * What the hub's planning and advice operations read: the hub's catalog and device, the inventory, the household's
 * standing constraints and the operating mode. Transport-free: REST routes, MCP tools and A2A skills pass the same
 * context to the same functions. The index passes a context with only a catalog (stateless: nothing personal).
 */
import type { Catalog } from '../index/catalog.js';
import type { Json, Level } from '../index/entry.js';

export interface StockItem {
  id: string;
  name: string;
  quantity: number;
  unit: string;
  expires?: string;
}

/** The household's standing constraints (docs/hub.md#household): applied to every plan, match and advice. */
export interface Household {
  /** Recipes below this verification level are refused (`verification-level`). */
  minLevel?: Level;
  /** Allergens no recipe may contain (lower case, the recipe's own names: gluten, eggs, peanuts…). */
  excludeAllergens: string[];
  /** Diets every recipe must carry a claim for (vegetarian, halal…). */
  diets: string[];
}

export const NO_HOUSEHOLD: Household = { excludeAllergens: [], diets: [] };

export interface PlanningContext {
  catalog(): Catalog;
  /** The kitchen's actors: capabilities documents (the hub's own device first). Empty on the index. */
  actors(): Json[];
  now(): Date;
  /** The kitchen's stock; absent on the index (then only what the request carries counts). */
  inventory?(): StockItem[];
  household?(): Household;
  /** The hub's operating mode (`normal`, `saver`, `away`…); absent on the index. */
  mode?(): string;
}
