/**
 * The recipes this device may cook: every `*.svc.json` file of a folder, each identified by its id and its
 * document hash (sha256 of the canonical JSON without `hash` and `signature`). A file whose embedded `hash`
 * does not match its content is not loaded (it was edited after hashing); the reason is reported.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../core/canonical.js';
import { documentHash } from '../../core/hash.js';
import { ConfigError } from './config.js';

export interface RecipeEntry {
  id: string;
  hash: string;
  doc: Record<string, unknown>;
  file: string;
}

/** Another place cookable recipes come from (e.g. the ones synced from an index, runtime/sync). */
export interface RecipeSource {
  get(id: string): RecipeEntry | undefined;
  list(): RecipeEntry[];
}

export interface RecipeCatalog {
  get(id: string): RecipeEntry | undefined;
  list(): RecipeEntry[];
  /** Files that were skipped, with why. */
  skipped: { file: string; reason: string }[];
  /**
   * Consult `source` as well: sources are asked in the order they were added, before the folder, so a source's
   * recipe shadows a folder recipe with the same id. Returns a function that removes the source.
   */
  addSource?(source: RecipeSource): () => void;
}

export function catalogOf(entries: RecipeEntry[], skipped: RecipeCatalog['skipped'] = []): RecipeCatalog {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const sources: RecipeSource[] = [];
  return {
    get: (id) => {
      for (const s of sources) {
        const e = s.get(id);
        if (e) return e;
      }
      return byId.get(id);
    },
    list: () => {
      if (sources.length === 0) return [...byId.values()];
      const all = new Map(byId);
      for (const s of [...sources].reverse()) for (const e of s.list()) all.set(e.id, e);
      return [...all.values()];
    },
    skipped,
    addSource(source) {
      sources.push(source);
      return () => {
        const i = sources.indexOf(source);
        if (i >= 0) sources.splice(i, 1);
      };
    },
  };
}

/** A recipe entry from a parsed document; throws with a reason when it cannot be one. */
export function recipeEntry(doc: unknown, file: string): RecipeEntry {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not a JSON object');
  const d = doc as Record<string, unknown>;
  if (typeof d.id !== 'string' || d.id === '') throw new Error('no string id');
  const proc = d.process as { nodes?: unknown } | undefined;
  if (!proc || !Array.isArray(proc.nodes)) throw new Error('no process.nodes array');
  const hash = documentHash(d);
  if (d.hash !== undefined && d.hash !== hash) throw new Error(`its hash ${String(d.hash)} does not match its content (${hash})`);
  return { id: d.id, hash, doc: d, file };
}

export function loadRecipes(dir: string): RecipeCatalog {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.svc.json'))
      .sort();
  } catch (err) {
    throw new ConfigError(`${dir}: cannot read the recipes folder (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const entries: RecipeEntry[] = [];
  const skipped: RecipeCatalog['skipped'] = [];
  for (const name of names) {
    const file = join(dir, name);
    try {
      const entry = recipeEntry(parseJson(readFileSync(file, 'utf8')), file);
      if (entries.some((e) => e.id === entry.id)) throw new Error(`duplicate recipe id ${entry.id}`);
      entries.push(entry);
    } catch (err) {
      skipped.push({ file, reason: (err as Error).message });
    }
  }
  return catalogOf(entries, skipped);
}
