/**
 * `hearth index build`: turn a folder of recipes (and optionally one of signed recalls) into the static index
 * of semantics §10. Incremental: the out dir keeps a build state, only changed files are rewritten, and the
 * catalog version goes up by one per build that changed something.
 */
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sha256Hex } from '../../../core/hash.js';
import type { KeyFile, KeyRecord } from '../../../core/keys.js';
import { publicRecord } from '../../../core/keys.js';
import { signDocument } from '../../../core/signature.js';
import { toRfc3339Seconds } from '../../../core/time.js';
import type { RecallItem } from '../catalog.js';
import { agentCard, DEFAULT_SITE_NAME, discoveryDocument, PAGE_SIZE, PATHS, type SiteOptions, SVC_VERSION } from '../documents.js';
import { indexEntry, type RecipeFacts } from '../entry.js';
import { type BuildState, type HistoryEntry, OutputDir, readState, writeState } from './output.js';
import { isRecipeDocument, PublishedDocuments } from './published.js';
import { readRecalls, readRecipes, type SourceRecall, type SourceRecipe } from './sources.js';
import { standardFiles } from './standard-files.js';

export interface BuildProgress {
  phase: 'read' | 'write' | 'pages' | 'sign';
  done: number;
  total: number;
}

export interface BuildOptions {
  recipesDir: string;
  outDir: string;
  key: KeyFile;
  recallsDir?: string;
  /** Further keys whose Recall signatures are accepted (the index's own key always is). */
  trust?: readonly KeyRecord[];
  name?: string;
  baseUrl?: string;
  now?: () => Date;
  onProgress?: (p: BuildProgress) => void;
}

export interface BuildResult {
  version: number;
  changed: boolean;
  recipes: number;
  upserted: number;
  removed: number;
  recalls: number;
  /** Market, relief and report documents published on their pages. */
  documents: number;
  written: number;
  kept: number;
  deleted: number;
}

function isVersioned(rel: string): boolean {
  return rel === PATHS.manifest || rel.startsWith('v1/changes/');
}

function byId<T extends { id: string }>(a: T, b: T): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function emitPages(out: OutputDir, facts: RecipeFacts[]): string[] {
  const langs = [...new Set(facts.flatMap((f) => Object.keys(f.titles)))]
    .filter((l) => /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(l))
    .sort();
  for (const lang of langs) {
    const entries = facts.map((f) => indexEntry(f, lang));
    const pageCount = Math.max(1, Math.ceil(entries.length / PAGE_SIZE));
    for (let page = 0; page < pageCount; page++) {
      const items = entries.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
      out.emit(PATHS.indexPage(lang, page), `${JSON.stringify({ svc: SVC_VERSION, lang, page, pageCount, items })}\n`);
    }
  }
  return langs;
}

function sameKey(a: KeyRecord, b: KeyRecord): boolean {
  return a.kid === b.kid && a.publicKey === b.publicKey;
}

/** Catalog snapshot (id → hash) after each version, by replaying the history. */
function snapshots(history: readonly HistoryEntry[]): Map<number, Map<string, string>> {
  const out = new Map<number, Map<string, string>>([[0, new Map()]]);
  let cur = new Map<string, string>();
  for (const h of [...history].sort((a, b) => a.version - b.version)) {
    cur = new Map(cur);
    for (const u of h.upserted) cur.set(u.id, u.hash);
    for (const r of h.removed) cur.delete(r.id);
    out.set(h.version, cur);
  }
  return out;
}

function lastRemovalReason(history: readonly HistoryEntry[], id: string): string {
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]?.removed.find((x) => x.id === id);
    if (r) return r.reason;
  }
  return 'withdrawn';
}

function emitChanges(out: OutputDir, version: number, history: HistoryEntry[], current: Map<string, string>, recalls: RecallItem[]): void {
  const snaps = snapshots(history);
  for (let since = 0; since < version; since++) {
    const before = snaps.get(since) ?? new Map<string, string>();
    const upserted = [...current.entries()].filter(([id, hash]) => before.get(id) !== hash).map(([id, hash]) => ({ id, hash }));
    const removed = [...before.keys()].filter((id) => !current.has(id)).map((id) => ({ id, reason: lastRemovalReason(history, id) }));
    const doc = {
      svc: SVC_VERSION,
      from: String(since),
      to: String(version),
      upserted: upserted.sort(byId),
      removed: removed.sort(byId),
      recalls,
    };
    out.emit(PATHS.changes(since), `${JSON.stringify(doc)}\n`);
  }
}

function counts(facts: RecipeFacts[], langs: string[]): Record<string, unknown> {
  const byLevel: Record<string, number> = {};
  for (const f of facts) byLevel[f.level] = (byLevel[f.level] ?? 0) + 1;
  const countries = new Set(facts.flatMap((f) => f.cuisine));
  return { recipes: facts.length, byLevel, countries: countries.size, languages: langs.length };
}

export const LOCK_FILE = '.hearth-index.lock';

/**
 * Build (or update) the static index in `opts.outDir`. Throws `BuildInputError` on a bad input file, and an
 * Error when another build holds the out dir's lock file.
 */
export function buildIndex(opts: BuildOptions): BuildResult {
  mkdirSync(opts.outDir, { recursive: true });
  const lock = join(opts.outDir, LOCK_FILE);
  let fd: number;
  try {
    fd = openSync(lock, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new Error(`another build is writing ${opts.outDir} (remove ${lock} if no build is running)`);
    }
    throw err;
  }
  try {
    return buildLocked(opts);
  } finally {
    closeSync(fd);
    rmSync(lock, { force: true });
  }
}

function buildLocked(opts: BuildOptions): BuildResult {
  const now = opts.now ?? (() => new Date());
  const progress = opts.onProgress ?? (() => {});
  const state: BuildState = readState(opts.outDir);
  const site: SiteOptions = { name: opts.name ?? DEFAULT_SITE_NAME, baseUrl: (opts.baseUrl ?? '').replace(/\/+$/, '') };

  const published = new PublishedDocuments();
  const recipes: SourceRecipe[] = readRecipes(opts.recipesDir, (done, total) => progress({ phase: 'read', done, total }), {
    isRecipe: isRecipeDocument,
    add: (file, doc) => published.add(file, doc),
  }).sort((a, b) => byId(a.facts, b.facts));
  published.check(new Set(recipes.map((r) => r.facts.id)));
  const own = publicRecord(opts.key);
  const recalls: SourceRecall[] = opts.recallsDir ? readRecalls(opts.recallsDir, [own, ...(opts.trust ?? [])]) : [];

  const out = new OutputDir(opts.outDir, state.files);
  recipes.forEach((r, i) => {
    out.emit(PATHS.recipe(r.facts.id), r.text);
    progress({ phase: 'write', done: i + 1, total: recipes.length });
  });
  const facts = recipes.map((r) => r.facts);
  progress({ phase: 'pages', done: 0, total: 1 });
  const langs = emitPages(out, facts);
  for (const rc of recalls) out.emit(PATHS.recall(rc.id), rc.text);
  for (const [path, page] of published.pages(SVC_VERSION)) out.emit(path, `${JSON.stringify(page)}\n`);
  for (const f of standardFiles(SVC_VERSION)) out.emit(f.path, f.text);
  // Compressing the dump is the slowest step; an unchanged list of recipes keeps the last one.
  const dumpOf = `sha256:${sha256Hex(recipes.map((r) => `${r.facts.id} ${r.facts.hash}`).join('\n'))}`;
  if (state.dumpOf !== dumpOf || !out.keep(PATHS.dump)) {
    const dump = recipes.map((r) => `${JSON.stringify(r.doc)}\n`).join('');
    out.emit(PATHS.dump, gzipSync(Buffer.from(dump, 'utf8'), { level: 6 }));
  }
  progress({ phase: 'pages', done: 1, total: 1 });

  const keys = state.keys.some((k) => sameKey(k, own)) ? state.keys : [...state.keys, own];
  out.emit(PATHS.discovery, `${JSON.stringify(discoveryDocument(site, keys), null, 2)}\n`);
  // The card needs absolute URLs: without --base-url the static index has none (`hearth index serve` serves one).
  const card = agentCard(site);
  if (card) out.emit(PATHS.agentCard, `${JSON.stringify(card, null, 2)}\n`);

  const current = new Map(facts.map((f) => [f.id, f.hash]));
  const staleContent = out.stale().some((p) => !isVersioned(p));
  const changed = out.contentChanged || staleContent || state.version === 0;
  let version = state.version;
  let upserted: HistoryEntry['upserted'] = [];
  let removed: HistoryEntry['removed'] = [];
  const history = [...state.history];
  let generatedAt = state.generatedAt;
  const recallItems = recalls.flatMap((r) => r.items).sort(byId);

  if (changed) {
    version = state.version + 1;
    generatedAt = toRfc3339Seconds(now());
    upserted = [...current.entries()].filter(([id, hash]) => state.recipes[id] !== hash).map(([id, hash]) => ({ id, hash }));
    removed = Object.keys(state.recipes)
      .filter((id) => !current.has(id))
      .map((id) => ({ id, reason: 'withdrawn' }));
    history.push({ version, generatedAt, upserted, removed });
    emitChanges(out, version, history, current, recallItems);
    progress({ phase: 'sign', done: 0, total: 1 });
    const shards = Object.entries(out.files())
      .filter(([rel]) => rel.startsWith('v1/'))
      .map(([rel, f]) => ({ path: `/${rel}`, hash: f.hash, bytes: f.bytes }));
    const manifest = {
      svc: SVC_VERSION,
      version: String(version),
      generatedAt,
      counts: counts(facts, langs),
      languages: langs,
      shards,
    };
    const { hash: _hash, ...signed } = signDocument(manifest, opts.key, { kind: 'Manifest', signedAt: generatedAt });
    out.emit(PATHS.manifest, `${JSON.stringify(signed)}\n`);
    progress({ phase: 'sign', done: 1, total: 1 });
  } else {
    // Nothing changed: the manifest and changes files of the current version stay as they are.
    for (const rel of out.stale()) {
      const rec = state.files[rel];
      if (rec && isVersioned(rel)) out.emitted.set(rel, rec);
    }
  }
  const deleted = out.removeStale();
  const next: BuildState = {
    format: state.format,
    version,
    files: out.files(),
    recipes: Object.fromEntries(current),
    recalls: Object.fromEntries(recalls.map((r) => [r.id, r.hash])),
    history,
    keys,
    dumpOf,
  };
  if (generatedAt !== undefined) next.generatedAt = generatedAt;
  writeState(opts.outDir, next);
  return {
    version,
    changed,
    recipes: recipes.length,
    upserted: upserted.length,
    removed: removed.length,
    recalls: recalls.length,
    documents: published.total(),
    written: out.written,
    kept: out.kept,
    deleted,
  };
}
