/**
 * The served catalog, loaded from a built index directory: the manifest (checked against the discovery keys),
 * every recipe it lists (each hash checked), the current recall list and the search index. `refresh()` reloads
 * when the manifest file changes, so `hearth index build` into a served directory is picked up.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../../core/canonical.js';
import { documentHash } from '../../../core/hash.js';
import type { KeyRecord } from '../../../core/keys.js';
import { verifyDocument } from '../../../core/signature.js';
import { type Catalog, catalogOf, type RecallItem } from '../catalog.js';
import { PATHS } from '../documents.js';
import { type Json, type RecipeFacts, recipeFacts } from '../entry.js';

export class CatalogLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogLoadError';
  }
}

function readJson(file: string, what: string): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CatalogLoadError(
      `${what} ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}); is this a built index?`,
    );
  }
  try {
    const v = parseJson(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
    return v as Json;
  } catch (err) {
    throw new CatalogLoadError(`${what} ${file}: ${(err as Error).message}`);
  }
}

/** Load and check the index in `dir`. */
export function loadCatalog(dir: string): Catalog {
  const discovery = readJson(join(dir, PATHS.discovery), 'discovery document');
  const manifest = readJson(join(dir, PATHS.manifest), 'manifest');
  const keys = Array.isArray(discovery.keys) ? (discovery.keys as KeyRecord[]) : [];
  const v = verifyDocument(manifest, keys, { kind: 'Manifest' });
  if (!v.ok) throw new CatalogLoadError(`the manifest's signature does not verify with the discovery keys (${v.reason})`);
  const version = String(manifest.version);
  const shards = Array.isArray(manifest.shards) ? (manifest.shards as { path?: unknown }[]) : [];
  const docs = new Map<string, Json>();
  const facts: RecipeFacts[] = [];
  for (const s of shards) {
    if (typeof s.path !== 'string' || !/^\/v1\/recipes\/[a-z0-9-]+\.svc\.json$/.test(s.path)) continue;
    const doc = readJson(join(dir, s.path), 'recipe');
    if (typeof doc.hash !== 'string' || documentHash(doc) !== doc.hash) throw new CatalogLoadError(`recipe ${s.path}: hash mismatch`);
    const f = recipeFacts(doc);
    docs.set(f.id, doc);
    facts.push(f);
  }
  const version0 = Number(version);
  let recalls: RecallItem[] = [];
  if (Number.isInteger(version0) && version0 > 0) {
    const changes = readJson(join(dir, PATHS.changes(version0 - 1)), 'changes file');
    if (Array.isArray(changes.recalls)) recalls = changes.recalls as RecallItem[];
  }
  return catalogOf(version, docs, facts, recalls);
}

export class CatalogStore {
  private current: Catalog;
  private mtime: number;
  private checkedAt = 0;

  constructor(
    readonly dir: string,
    private readonly clock: () => number = () => Date.now(),
    private readonly onReloadError: (err: Error) => void = () => {},
  ) {
    this.mtime = this.manifestMtime();
    this.current = loadCatalog(dir);
  }

  private manifestMtime(): number {
    try {
      return statSync(join(this.dir, PATHS.manifest)).mtimeMs;
    } catch {
      return -1;
    }
  }

  /** The catalog, reloaded first if the manifest changed (checked at most once a second). */
  get(): Catalog {
    const t = this.clock();
    if (t - this.checkedAt >= 1000) {
      this.checkedAt = t;
      const m = this.manifestMtime();
      if (m !== this.mtime) {
        try {
          this.current = loadCatalog(this.dir);
          this.mtime = m;
        } catch (err) {
          // A half-written build: keep serving the last good catalog and try again later.
          this.onReloadError(err as Error);
        }
      }
    }
    return this.current;
  }
}
