/**
 * The recipe API's in-memory catalog, built once at start from a folder of recipe documents (searched
 * recursively for *.json). A document that is not JSON, does not validate against the recipe schema, has no
 * id, repeats an id or carries a wrong hash stops the load with its path and the reason.
 */
import { type Dirent, readdirSync, type Stats, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { documentHash } from '../../core/hash.js';
import { packageRoot } from '../../platform/paths.js';
import type { RecipeFacts } from '../index/entry.js';
import { SearchIndex } from '../index/search/search.js';
import { catalogKey, codeKey, fileStamp, readIndexCache, type StoredRow, writeIndexCache } from './index-cache.js';
import { loadWorkers, parallelReader } from './load-parallel.js';
import { ApiError } from './params.js';
import { CatalogError, readJson, readRecipe } from './recipe-check.js';
import { assignCostTiers, type Json, type Row, rowOf, Strings } from './rows.js';
import { type IngredientWordIndex, ingredientWordIndex } from './select/words.js';

export { CatalogError, readRecipe };

export interface Catalog {
  dir: string;
  rows: Row[];
  byId: Map<string, Row>;
  search: SearchIndex;
  costTiers?: { budgetMax: number; midMax: number };
  /** Ingredient name → rows using it. */
  ingredients: Map<string, Row[]>;
  /** Singular ingredient word → rows with an ingredient holding it (the ingredient filters look rows up here). */
  ingredientWords: IngredientWordIndex;
  devices: Map<string, Json>;
  certifications: Json[];
  /**
   * With an index cache: whether this load used it whole, or wrote it (failed: it could not be written; pending:
   * `writeIndexCache` writes it, see LoadOptions.deferIndexCacheWrite).
   */
  indexCache?: 'used' | 'written' | 'failed' | 'pending';
  /**
   * Rows taken from the index cache: those of unchanged files (all of them when it was used whole), less the rows
   * of documents without a hash, which are read and derived again at every start.
   */
  indexCacheRows?: number;
  /** With `indexCache: 'pending'`: write the index cache now (once; sets `indexCache` to written or failed). */
  writeIndexCache?: () => void;
  /** A full load's worker threads (load-parallel.ts) and how many documents they checked. */
  loadWorkers?: { threads: number; files: number };
  /** Why the index cache could not be written (with `indexCache: 'failed'`). */
  indexCacheError?: string;
}

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The *.json files under `dir` in name order, links followed; with `stats`, each one's stats too (the index
 * cache's key). A plain file or folder is told by its directory entry; only a link, an entry of unknown type, or a
 * file whose stats are wanted is stat'ed (2,000 stat calls were ~5–14 ms of a cold start).
 */
function walk(dir: string, out: string[], depth = 0, stats?: Stats[]): void {
  if (depth > 8) return;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort(byName);
  } catch (err) {
    throw new CatalogError(`${dir}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  for (const e of entries) {
    const n = e.name;
    if (n.startsWith('.')) continue;
    const p = join(dir, n);
    const st = stats !== undefined || !(e.isFile() || e.isDirectory()) ? statSync(p) : undefined;
    if (st ? st.isDirectory() : e.isDirectory()) walk(p, out, depth + 1, stats);
    else if (n.endsWith('.json')) {
      out.push(p);
      if (st) stats?.push(st);
    }
  }
}

/** Tags, ingredient names and methods in one list (a loop: spreads of these lists sent V8's optimized code back). */
function tagsOf(r: Row): string[] {
  const out: string[] = [];
  for (const t of r.tags) out.push(t);
  for (const i of r.ingredients) out.push(i.name);
  for (const m of r.methods) out.push(m);
  return out;
}

function factsOf(r: Row): RecipeFacts {
  return {
    id: r.id,
    hash: r.hash,
    titles: r.titles,
    level: (['V0', 'V1', 'V2', 'V3'].includes(r.level) ? r.level : 'V0') as RecipeFacts['level'],
    allergensEU: r.allergenInfo.declared,
    cuisine: r.cuisine,
    ...(r.course ? { course: r.course } : {}),
    // Ingredient names are searchable with the tags ("lentil" finds a soup that uses lentils).
    tags: tagsOf(r),
    ops: r.ops,
  };
}

function loadDevices(): Map<string, Json> {
  const dir = join(packageRoot(), 'examples', 'devices');
  const out = new Map<string, Json>();
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return out;
  }
  for (const n of names.sort()) out.set(n.replace(/\.json$/, ''), readJson(join(dir, n)));
  return out;
}

function loadCertifications(dir: string | undefined): Json[] {
  if (dir === undefined) return [];
  const files: string[] = [];
  walk(dir, files);
  return files.map(readJson).filter((d) => d.kind === 'Certification');
}

/** How many documents read back from their files are kept (a detail view or a dry run reads one). */
const DOC_CACHE = 64;

/**
 * A hashed recipe's document is not kept in memory once its row is built (2,000 documents held ~10 MB of heap):
 * `row.doc()` reads it back from its file, checks its hash against the one verified at load, and keeps the last
 * DOC_CACHE read. A file changed or removed since the start answers 503: the catalog is what was checked.
 */
function docFromFile(row: Row, file: string, cache: Map<string, Json>): void {
  const { hash, id } = row;
  row.doc = (): Json => {
    let doc = cache.get(file);
    if (doc !== undefined) {
      cache.delete(file);
      cache.set(file, doc);
      return doc;
    }
    try {
      doc = readJson(file);
    } catch {
      doc = undefined;
    }
    if (doc === undefined || doc.id !== id || documentHash(doc) !== hash)
      throw new ApiError(503, 'catalog_changed', `recipe ${id} changed on disk since the start; restart the recipe API to load it`);
    cache.set(file, doc);
    if (cache.size > DOC_CACHE) cache.delete(cache.keys().next().value as string);
    return doc;
  };
}

export interface LoadOptions {
  /** Folder of Certification documents to list on /api/certifications. */
  certificationsDir?: string;
  /** A file for the index cache (index-cache.ts): used when it matches the catalog, else written after the load. */
  indexCache?: string;
  /**
   * Leave the index cache to be written later, by `catalog.writeIndexCache()` (the CLI writes it once the server has
   * answered and is quiet: serializing 2,000 rows is ~50 ms that a first answer need not wait for).
   */
  deferIndexCacheWrite?: boolean;
  /** Worker threads for a full load (load-parallel.ts); none by default (HEARTH_LOAD_WORKERS=N chooses). */
  workers?: number;
  /** Tests: the worker threads check every file (see load-parallel.ts). */
  workersOnly?: boolean;
}

/** Every document read, checked (by worker threads too, see load-parallel.ts) and turned into its row, in file order. */
function loadRows(
  dir: string,
  files: readonly string[],
  docs: Map<string, Json>,
  workers: number,
  workersOnly = false,
  reuse?: (i: number) => Row | undefined,
): { rows: Row[]; workers?: { threads: number; files: number } } {
  const rows: Row[] = [];
  const seen = new Map<string, string>();
  const strings = new Strings();
  const reader = workers > 0 ? parallelReader(files, workers, workersOnly) : undefined;
  try {
    for (const [i, file] of files.entries()) {
      const kept = reuse?.(i);
      const doc = kept ? undefined : reader ? reader.get(i) : readRecipe(file);
      const id = kept ? kept.id : (doc?.id as string);
      const before = seen.get(id);
      if (before !== undefined) throw new CatalogError(`${file}: recipe id ${id} is also used by ${relative(dir, before)}`);
      seen.set(id, file);
      const row = kept ?? rowOf(doc as Json, rows.length, strings);
      // The document's hash was verified; one without a hash stays in memory (nothing to check it against).
      if (doc && typeof doc.hash === 'string') docFromFile(row, file, docs);
      rows.push(row);
    }
  } finally {
    reader?.close();
  }
  return reader ? { rows, workers: { threads: reader.threads, files: reader.byWorkers() } } : { rows };
}

/**
 * A row of the index cache for file `path` at position `idx` (see index-cache.ts): its hashed document read back on
 * demand as after a full load. A document without a hash has nothing to be checked against later, so it is read
 * and checked now, as a full load does, and its row derived again from what was read.
 */
function cachedRow(stored: StoredRow, idx: number, path: string, docs: Map<string, Json>, strings: Strings): Row {
  if (stored.hash === '') return rowOf(readRecipe(path), idx, strings);
  const row = stored as Row;
  row.idx = idx;
  docFromFile(row, path, docs);
  return row;
}

/** Each file's stamp (index-cache.ts), in load order. */
function stampsOf(files: readonly string[], stats: readonly Stats[]): string[] {
  return files.map((f, i) => fileStamp(f, stats[i] as Stats));
}

/**
 * The rows after some files changed: each file whose stamp the cache holds takes its row from the cache, the
 * others are loaded in full. Undefined when fewer than half the files are unchanged: a full load (on worker
 * threads when asked) is then as quick.
 */
function partlyCachedRows(
  dir: string,
  files: readonly string[],
  stamps: readonly string[],
  cached: { rows: StoredRow[]; stamps: string[] },
  docs: Map<string, Json>,
): { rows: Row[]; reused: number } | undefined {
  const byStamp = new Map<string, number>();
  for (const [i, s] of cached.stamps.entries()) byStamp.set(s, i);
  let unchanged = 0;
  for (const s of stamps) if (byStamp.has(s)) unchanged++;
  if (unchanged * 2 < files.length) return undefined;
  const strings = new Strings();
  let reused = 0;
  const reuse = (i: number): Row | undefined => {
    const at = byStamp.get(stamps[i] as string);
    if (at === undefined) return undefined;
    byStamp.delete(stamps[i] as string);
    const stored = cached.rows[at] as StoredRow;
    if (stored.hash !== '') reused++;
    return cachedRow(stored, i, files[i] as string, docs, strings);
  };
  return { rows: loadRows(dir, files, docs, 0, false, reuse).rows, reused };
}

/** What writes a catalog's index cache, holding nothing of the load but what it writes. */
function cacheWriter(cat: Catalog, file: string, ids: { key: string; code: string; stamps: string[] }): () => void {
  return () => {
    const error = writeIndexCache(file, ids, cat.rows, cat.search.pack());
    cat.indexCache = error === undefined ? 'written' : 'failed';
    if (error !== undefined) cat.indexCacheError = error;
    delete cat.writeIndexCache;
  };
}

/** Load a catalog folder. Throws `CatalogError` (path and reason) on the first bad document. */
export function loadCatalog(dir: string, opts: LoadOptions = {}): Catalog {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(dir);
  } catch (err) {
    throw new CatalogError(`${dir}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (!st.isDirectory()) throw new CatalogError(`${dir}: not a directory`);
  // The index cache only where its stamp can see the code that derives rows (index-cache.ts).
  const codeId = opts.indexCache !== undefined ? codeKey(dir) : undefined;
  const code = codeId && 'key' in codeId ? codeId.key : '';
  const cacheFile = code !== '' ? opts.indexCache : undefined;
  const files: string[] = [];
  // Each file's stats only for the index cache's key (a load without the cache need not stat every file).
  let stats: Stats[] | undefined = cacheFile !== undefined ? [] : undefined;
  walk(dir, files, 0, stats);
  const docs = new Map<string, Json>();
  const stamps = stats ? stampsOf(files, stats) : [];
  stats = undefined;
  const key = cacheFile !== undefined ? catalogKey(code, stamps) : '';
  let cached = cacheFile !== undefined ? readIndexCache(cacheFile, key, code) : undefined;
  const whole = cached?.exact === true && cached.rows.length === files.length ? cached : undefined;
  let rows: Row[];
  let reused = 0;
  let workers: Catalog['loadWorkers'];
  if (whole) {
    const strings = new Strings();
    rows = whole.rows.map((s, i) => cachedRow(s, i, files[i] as string, docs, strings));
    for (const r of whole.rows) if (r.hash !== '') reused++;
  } else {
    // Some files changed: the rows of those that did not are taken from the cache (each by its file's stamp). The
    // search index is built again, so the stored one is let go at once, before the load.
    let old = cached ? { rows: cached.rows, stamps: cached.stamps } : undefined;
    cached = undefined;
    const partly = old ? partlyCachedRows(dir, files, stamps, old, docs) : undefined;
    old = undefined;
    if (partly) ({ rows, reused } = partly);
    else {
      const full = loadRows(dir, files, docs, loadWorkers(files.length, opts.workers), opts.workersOnly);
      rows = full.rows;
      workers = full.workers;
    }
  }
  if (rows.length === 0) throw new CatalogError(`${dir}: no recipe documents (*.json) found`);
  const byId = new Map<string, Row>();
  for (const r of rows) byId.set(r.id, r);
  const costTiers = assignCostTiers(rows);
  const ingredients = new Map<string, Row[]>();
  for (const r of rows) {
    for (const name of new Set(r.ingredients.map((i) => i.name))) {
      const list = ingredients.get(name) ?? [];
      list.push(r);
      ingredients.set(name, list);
    }
  }
  const cat: Catalog = {
    dir,
    rows,
    byId,
    search: new SearchIndex(rows.map(factsOf), whole?.search),
    ingredients,
    ingredientWords: ingredientWordIndex(rows),
    devices: loadDevices(),
    certifications: loadCertifications(opts.certificationsDir),
  };
  if (costTiers) cat.costTiers = costTiers;
  if (workers) cat.loadWorkers = workers;
  if (reused > 0) cat.indexCacheRows = reused;
  if (whole) cat.indexCache = 'used';
  else if (codeId && 'missing' in codeId) {
    cat.indexCache = 'failed';
    cat.indexCacheError = `it cannot see the code that derives rows (missing: ${codeId.missing.join(', ')})`;
  } else if (cacheFile !== undefined) {
    const write = cacheWriter(cat, cacheFile, { key, code, stamps });
    if (opts.deferIndexCacheWrite) {
      cat.indexCache = 'pending';
      cat.writeIndexCache = write;
    } else write();
  }
  return cat;
}
