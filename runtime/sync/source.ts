/**
 * The synced recipes as a RecipeSource for the device's catalog (runtime/config/recipes.ts): the executor and
 * the hub look recipes up through it. Rows are read once and cached; the cache is dropped when this process
 * applies a sync and when another process (a one-shot `hearth sync` on the same data dir) has committed.
 * With several indexes, the one configured first wins for an id both publish.
 */
import { parseJson } from '../../core/canonical.js';
import type { RecipeEntry, RecipeSource } from '../config/recipes.js';
import type { SyncStore } from './store.js';

interface Row {
  indexUrl: string;
  id: string;
  hash: string;
  doc: string;
  entry?: RecipeEntry;
}

export class SyncedRecipes implements RecipeSource {
  private cache?: Map<string, Row>;
  private seen = -1;

  constructor(
    private readonly store: SyncStore,
    private readonly order: readonly string[] = [],
  ) {
    store.onApplied(() => {
      this.cache = undefined;
    });
  }

  private rank(url: string): number {
    const i = this.order.indexOf(url);
    return i < 0 ? this.order.length : i;
  }

  private rows(): Map<string, Row> {
    const dv = this.store.dataVersion();
    if (this.cache && dv === this.seen) return this.cache;
    this.seen = dv;
    const map = new Map<string, Row>();
    for (const r of this.store.recipeRows()) {
      const have = map.get(r.id);
      if (!have || this.rank(r.indexUrl) < this.rank(have.indexUrl)) map.set(r.id, r);
    }
    this.cache = map;
    return map;
  }

  private entryOf(r: Row): RecipeEntry {
    r.entry ??= {
      id: r.id,
      hash: r.hash,
      doc: parseJson(r.doc) as Record<string, unknown>,
      file: `${r.indexUrl}/v1/recipes/${r.id}.svc.json`,
    };
    return r.entry;
  }

  get(id: string): RecipeEntry | undefined {
    const r = this.rows().get(id);
    return r ? this.entryOf(r) : undefined;
  }

  list(): RecipeEntry[] {
    return [...this.rows().values()].map((r) => this.entryOf(r));
  }
}
