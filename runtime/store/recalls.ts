/**
 * Recalls this device knows about. Sync (another feature) fills the table from an index's changes feed with
 * `add`; the executor refuses a recalled revision with `recipe_recalled`; GET /v1/recalls serves them.
 * A recall blocks when its action is `block` or `block_and_stop_running` (`warn` only warns); one with
 * `block_and_stop_running` also stops a running execution of the revision (runtime/sync/recall-stop.ts).
 */
import type { Database } from 'better-sqlite3';
import type { Migration } from '../../platform/sqlite/migrations.js';

export const recallsMigration: Migration = {
  id: 'recalls.1',
  up(db) {
    db.exec(`CREATE TABLE recalls (
      id TEXT PRIMARY KEY, issued_at TEXT NOT NULL, issued_ms INTEGER NOT NULL, action TEXT NOT NULL,
      doc TEXT NOT NULL, received_at INTEGER NOT NULL)`);
    db.exec('CREATE INDEX recalls_issued ON recalls (issued_ms)');
    db.exec(`CREATE TABLE recall_targets (
      recall_id TEXT NOT NULL REFERENCES recalls (id) ON DELETE CASCADE, recipe_id TEXT NOT NULL, hash TEXT,
      all_revisions INTEGER NOT NULL)`);
    db.exec('CREATE INDEX recall_targets_recipe ON recall_targets (recipe_id)');
  },
};

/** The recipe id a global reference names: `<url>#<id>`, `cw:<authority>:<id>` or a bare id. */
export function refId(ref: string): string {
  const hash = ref.lastIndexOf('#');
  if (hash >= 0) return ref.slice(hash + 1);
  if (ref.startsWith('cw:')) return ref.slice(ref.lastIndexOf(':') + 1);
  return ref;
}

export interface RecallTarget {
  ref: string;
  hash?: string;
  allRevisions?: boolean;
}

export interface RecallDoc {
  id: string;
  issuedAt: string;
  /** block, block_and_stop_running or warn; a recall without one blocks. */
  action?: string;
  targets: RecallTarget[];
  [k: string]: unknown;
}

const ACTIONS = new Set(['block', 'block_and_stop_running', 'warn']);

/** A recall without a known action (an index may publish one without) blocks: failing closed. */
export function actionOf(recall: { action?: unknown }): string {
  return typeof recall.action === 'string' && ACTIONS.has(recall.action) ? recall.action : 'block';
}

export class RecallRepo {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Store (or replace) a recall. The caller has verified its signature. */
  add(recall: RecallDoc): void {
    const issuedMs = Date.parse(recall.issuedAt);
    if (!Number.isFinite(issuedMs)) throw new Error(`recall ${recall.id}: issuedAt is not a date-time`);
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM recalls WHERE id = ?').run(recall.id);
      this.db
        .prepare('INSERT INTO recalls (id, issued_at, issued_ms, action, doc, received_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(recall.id, recall.issuedAt, issuedMs, actionOf(recall), JSON.stringify(recall), this.now());
      const t = this.db.prepare('INSERT INTO recall_targets (recall_id, recipe_id, hash, all_revisions) VALUES (?, ?, ?, ?)');
      for (const target of recall.targets)
        t.run(recall.id, refId(target.ref), target.hash ?? null, target.allRevisions === true || target.hash === undefined ? 1 : 0);
    })();
  }

  /** Recalls issued after `sinceMs` (all when undefined), oldest first. */
  since(sinceMs?: number): RecallDoc[] {
    const rows = this.db
      .prepare('SELECT doc FROM recalls WHERE issued_ms > ? ORDER BY issued_ms, id')
      .all(sinceMs ?? Number.MIN_SAFE_INTEGER) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc) as RecallDoc);
  }

  /** The blocking recall of a recipe revision, if any. */
  blocking(recipeId: string, hash: string): RecallDoc | undefined {
    return this.first(recipeId, hash, ['block', 'block_and_stop_running']);
  }

  /** The recall that stops a running execution of this revision (`block_and_stop_running`), if any. */
  stopping(recipeId: string, hash: string): RecallDoc | undefined {
    return this.first(recipeId, hash, ['block_and_stop_running']);
  }

  private first(recipeId: string, hash: string, actions: readonly string[]): RecallDoc | undefined {
    const row = this.db
      .prepare(
        `SELECT r.doc FROM recall_targets t JOIN recalls r ON r.id = t.recall_id
         WHERE t.recipe_id = ? AND (t.all_revisions = 1 OR t.hash = ?) AND r.action IN (${actions.map(() => '?').join(', ')})
         ORDER BY r.issued_ms LIMIT 1`,
      )
      .get(recipeId, hash, ...actions) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as RecallDoc) : undefined;
  }
}

export const incidentsMigration: Migration = {
  id: 'incidents.1',
  up(db) {
    db.exec('CREATE TABLE incidents (id TEXT PRIMARY KEY, doc TEXT NOT NULL, received_at INTEGER NOT NULL)');
  },
};

/** Anonymous incident reports (POST /v1/incidents). Returns false when the id was already stored. */
export function storeIncident(db: Database, doc: { id: string }, now: number): boolean {
  return (
    db.prepare('INSERT OR IGNORE INTO incidents (id, doc, received_at) VALUES (?, ?, ?)').run(doc.id, JSON.stringify(doc), now).changes ===
    1
  );
}
