/**
 * What sync keeps in the device's SQLite store: per index the last verified state (catalog version, manifest
 * hash, when), the recipes it holds from that index (id, document hash, file hash, the document), the recalls
 * it verified there, and a staging table of documents downloaded and verified by a sync that has not applied
 * yet (keyed by the file's SHA-256, so a resumed sync does not download them again).
 */
import type { Database } from 'better-sqlite3';
import type { Migration } from '../../platform/sqlite/migrations.js';

export const syncMigration: Migration = {
  id: 'sync.1',
  up(db) {
    db.exec(`CREATE TABLE sync_state (
      index_url TEXT PRIMARY KEY, version TEXT, manifest_hash TEXT, generated_at TEXT, synced_at INTEGER,
      last_summary TEXT)`);
    db.exec(`CREATE TABLE sync_recipes (
      index_url TEXT NOT NULL, id TEXT NOT NULL, hash TEXT NOT NULL, file_hash TEXT NOT NULL, doc TEXT NOT NULL,
      version TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (index_url, id))`);
    db.exec(`CREATE TABLE sync_recalls (
      index_url TEXT NOT NULL, id TEXT NOT NULL, hash TEXT NOT NULL, file_hash TEXT NOT NULL, severity TEXT,
      received_at INTEGER NOT NULL, PRIMARY KEY (index_url, id))`);
    db.exec(`CREATE TABLE sync_staging (
      file_hash TEXT PRIMARY KEY, kind TEXT NOT NULL, id TEXT NOT NULL, hash TEXT NOT NULL, doc TEXT NOT NULL,
      staged_at INTEGER NOT NULL)`);
  },
};

export interface IndexState {
  url: string;
  version: string | null;
  manifestHash: string | null;
  generatedAt: string | null;
  syncedAt: number | null;
  lastSummary: Record<string, unknown> | null;
}

export interface HeldRecipe {
  id: string;
  hash: string;
  fileHash: string;
}

export interface StagedRef {
  fileHash: string;
  kind: 'recipe' | 'recall';
  id: string;
  hash: string;
}

export interface StagedDoc extends StagedRef {
  doc: string;
}

interface StateRow {
  index_url: string;
  version: string | null;
  manifest_hash: string | null;
  generated_at: string | null;
  synced_at: number | null;
  last_summary: string | null;
}

function toState(r: StateRow): IndexState {
  return {
    url: r.index_url,
    version: r.version,
    manifestHash: r.manifest_hash,
    generatedAt: r.generated_at,
    syncedAt: r.synced_at,
    lastSummary: r.last_summary === null ? null : (JSON.parse(r.last_summary) as Record<string, unknown>),
  };
}

/** Staged documents older than this are dropped (a sync that never resumed). */
export const STAGING_TTL_MS = 7 * 24 * 3600 * 1000;

export class SyncStore {
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Called after every applied sync (the recipe source drops its cache). */
  onApplied(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  state(url: string): IndexState {
    const row = this.db.prepare('SELECT * FROM sync_state WHERE index_url = ?').get(url) as StateRow | undefined;
    return row ? toState(row) : { url, version: null, manifestHash: null, generatedAt: null, syncedAt: null, lastSummary: null };
  }

  states(): IndexState[] {
    return (this.db.prepare('SELECT * FROM sync_state ORDER BY index_url').all() as StateRow[]).map(toState);
  }

  /** Remember the outcome of an attempt (applied or not) without touching the verified state. */
  recordAttempt(url: string, summary: Record<string, unknown>): void {
    this.db
      .prepare(
        `INSERT INTO sync_state (index_url, last_summary) VALUES (?, ?)
         ON CONFLICT (index_url) DO UPDATE SET last_summary = excluded.last_summary`,
      )
      .run(url, JSON.stringify(summary));
  }

  held(url: string): Map<string, HeldRecipe> {
    const rows = this.db.prepare('SELECT id, hash, file_hash AS fileHash FROM sync_recipes WHERE index_url = ?').all(url) as HeldRecipe[];
    return new Map(rows.map((r) => [r.id, r]));
  }

  heldRecalls(url: string): Map<string, { id: string; hash: string; fileHash: string }> {
    const rows = this.db.prepare('SELECT id, hash, file_hash AS fileHash FROM sync_recalls WHERE index_url = ?').all(url) as {
      id: string;
      hash: string;
      fileHash: string;
    }[];
    return new Map(rows.map((r) => [r.id, r]));
  }

  staged(fileHash: string): StagedDoc | undefined {
    return this.db.prepare('SELECT file_hash AS fileHash, kind, id, hash, doc FROM sync_staging WHERE file_hash = ?').get(fileHash) as
      | StagedDoc
      | undefined;
  }

  /** Keep a verified document until the sync applies (survives an interrupted sync). */
  stage(d: StagedDoc): void {
    this.db
      .prepare('INSERT OR REPLACE INTO sync_staging (file_hash, kind, id, hash, doc, staged_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(d.fileHash, d.kind, d.id, d.hash, d.doc, this.now());
  }

  /** What is staged under `fileHash`, without the document (so a large sync holds no documents in memory). */
  stagedRef(fileHash: string): StagedRef | undefined {
    return this.db.prepare('SELECT file_hash AS fileHash, kind, id, hash FROM sync_staging WHERE file_hash = ?').get(fileHash) as
      | StagedRef
      | undefined;
  }

  stagedCount(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM sync_staging').get() as { n: number }).n;
  }

  /**
   * Apply one verified sync in a single transaction: upserts (from staging), removals, recalls (through
   * `addRecall`), the new state. Nothing is written when any step throws.
   */
  apply(a: {
    url: string;
    version: string;
    manifestHash: string;
    generatedAt: string | null;
    upserts: StagedRef[];
    removals: string[];
    recalls: { doc: StagedRef; severity: string | null }[];
    addRecall: (doc: StagedDoc) => void;
    summary: Record<string, unknown>;
  }): void {
    const now = this.now();
    const upsert = this.db.prepare(
      `INSERT INTO sync_recipes (index_url, id, hash, file_hash, doc, version, updated_at)
       SELECT ?, id, hash, file_hash, doc, ?, ? FROM sync_staging WHERE file_hash = ? AND kind = 'recipe' AND id = ? AND hash = ? LIMIT 1
       ON CONFLICT (index_url, id) DO UPDATE SET hash = excluded.hash, file_hash = excluded.file_hash, doc = excluded.doc,
       version = excluded.version, updated_at = excluded.updated_at`,
    );
    const remove = this.db.prepare('DELETE FROM sync_recipes WHERE index_url = ? AND id = ?');
    const recall = this.db.prepare(
      `INSERT INTO sync_recalls (index_url, id, hash, file_hash, severity, received_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (index_url, id) DO UPDATE SET hash = excluded.hash, file_hash = excluded.file_hash, severity = excluded.severity`,
    );
    const unstage = this.db.prepare('DELETE FROM sync_staging WHERE file_hash = ?');
    this.db.transaction(() => {
      for (const u of a.upserts)
        if (upsert.run(a.url, a.version, now, u.fileHash, u.id, u.hash).changes !== 1) throw new Error(`staged recipe ${u.id} is gone`);
      for (const id of a.removals) remove.run(a.url, id);
      for (const r of a.recalls) {
        const staged = this.staged(r.doc.fileHash);
        if (!staged) throw new Error(`staged recall ${r.doc.id} is gone`);
        a.addRecall(staged);
        recall.run(a.url, r.doc.id, r.doc.hash, r.doc.fileHash, r.severity, now);
      }
      for (const d of [...a.upserts, ...a.recalls.map((r) => r.doc)]) unstage.run(d.fileHash);
      this.db.prepare('DELETE FROM sync_staging WHERE staged_at < ?').run(now - STAGING_TTL_MS);
      this.db
        .prepare(
          `INSERT INTO sync_state (index_url, version, manifest_hash, generated_at, synced_at, last_summary) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (index_url) DO UPDATE SET version = excluded.version, manifest_hash = excluded.manifest_hash,
           generated_at = excluded.generated_at, synced_at = excluded.synced_at, last_summary = excluded.last_summary`,
        )
        .run(a.url, a.version, a.manifestHash, a.generatedAt, now, JSON.stringify(a.summary));
    })();
    for (const fn of this.listeners) fn();
  }

  /** Every synced recipe row: index, id, hash, document text. */
  recipeRows(): { indexUrl: string; id: string; hash: string; doc: string }[] {
    return this.db.prepare('SELECT index_url AS indexUrl, id, hash, doc FROM sync_recipes ORDER BY index_url, id').all() as {
      indexUrl: string;
      id: string;
      hash: string;
      doc: string;
    }[];
  }

  recipeCount(url: string): number {
    return (this.db.prepare('SELECT count(*) AS n FROM sync_recipes WHERE index_url = ?').get(url) as { n: number }).n;
  }

  /** SQLite's data_version: changes when another connection (e.g. `hearth sync`) commits. */
  dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }
}
