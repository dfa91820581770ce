/**
 * The SQLite registry store (better-sqlite3, WAL). Entries keep their full JSON document plus the columns
 * search needs; an FTS5 table answers `q`: every word of `q` must begin a word of the name, description or
 * tags (case- and accent-insensitive), so `ov` finds `oven` and `org.example/pa` finds `org.example/pack`. Rows are never deleted: a status change rewrites the status, a deletion leaves a
 * tombstone, and the (name, version) primary key keeps every pair from being published twice.
 */
import Database from 'better-sqlite3';
import { idempotencyMigration } from '../../../platform/http/idempotency.js';
import { MigrationRegistry } from '../../../platform/sqlite/migrations.js';
import type {
  Challenge,
  DirectoryEntry,
  NamespaceProof,
  RecallRecord,
  RegistryEntry,
  SearchQuery,
  StatusChange,
  TokenRecord,
} from '../types.js';
import type { RegistryStore, StatusResult } from './store.js';

const migrations = new MigrationRegistry().add(
  idempotencyMigration,
  {
    id: 'registry.1',
    up(db) {
      db.exec(`
      CREATE TABLE registry_entries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL, version TEXT NOT NULL, namespace TEXT NOT NULL,
        kind TEXT NOT NULL, status TEXT NOT NULL, search TEXT NOT NULL, doc TEXT NOT NULL,
        UNIQUE (name, version));
      CREATE INDEX registry_entries_kind ON registry_entries (kind, seq);
      CREATE INDEX registry_entries_status ON registry_entries (status, seq);
      CREATE VIRTUAL TABLE registry_entries_fts USING fts5 (
        search, tokenize = "unicode61 remove_diacritics 2 tokenchars '_'", prefix = '1 2 3');
      CREATE TABLE registry_directory (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, doc TEXT NOT NULL);
      CREATE TABLE registry_recalls (seq INTEGER PRIMARY KEY AUTOINCREMENT, doc TEXT NOT NULL);
      CREATE TABLE registry_challenges (
        id TEXT PRIMARY KEY, namespace TEXT NOT NULL, method TEXT NOT NULL, doc TEXT NOT NULL,
        used INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL);
      CREATE INDEX registry_challenges_ns ON registry_challenges (namespace, method, used);
      CREATE TABLE registry_proofs (namespace TEXT PRIMARY KEY, method TEXT NOT NULL, verified_at TEXT NOT NULL);
      CREATE TABLE registry_tokens (
        id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, namespaces TEXT NOT NULL, admin INTEGER NOT NULL, created_at TEXT NOT NULL);
    `);
    },
  },
  {
    id: 'registry.2',
    up(db) {
      db.exec('ALTER TABLE registry_tokens ADD COLUMN revoked_at TEXT');
    },
  },
  {
    // The database itself refuses to rewrite a published entry (anything but its status) or to remove one, and
    // to change a signed recall, whatever code runs against the file.
    id: 'registry.3',
    up(db) {
      db.exec(`
      CREATE TRIGGER registry_entries_immutable BEFORE UPDATE ON registry_entries
      WHEN NEW.seq <> OLD.seq OR NEW.name <> OLD.name OR NEW.version <> OLD.version OR NEW.kind <> OLD.kind
        OR NEW.namespace <> OLD.namespace
        OR json_remove(NEW.doc, '$.status', '$."x-status"') <> json_remove(OLD.doc, '$.status', '$."x-status"')
      BEGIN SELECT RAISE(ABORT, 'a published registry entry is immutable: only its status may change'); END;
      CREATE TRIGGER registry_entries_no_delete BEFORE DELETE ON registry_entries
      BEGIN SELECT RAISE(ABORT, 'registry entries are never removed; deleting one is a status change (a tombstone)'); END;
      CREATE TRIGGER registry_recalls_no_update BEFORE UPDATE ON registry_recalls
      BEGIN SELECT RAISE(ABORT, 'a signed recall is never changed or removed'); END;
      CREATE TRIGGER registry_recalls_no_delete BEFORE DELETE ON registry_recalls
      BEGIN SELECT RAISE(ABORT, 'a signed recall is never changed or removed'); END;
    `);
    },
  },
);

/** The text `q` searches: name, description and tags, lower case. */
export function searchText(e: RegistryEntry): string {
  return [e.name, e.description ?? '', ...(Array.isArray(e.tags) ? e.tags : [])].join(' ').toLowerCase();
}

function namespaceOf(name: string): string {
  return name.split('/')[0] ?? '';
}

/** The FTS5 query for a search string: each word as a prefix term, all required; null when `q` has no words. */
export function ftsQuery(q: string): string | null {
  const words = q
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((w) => w !== '');
  return words.length === 0 ? null : words.map((w) => `"${w}"*`).join(' ');
}

export class SqliteRegistryStore implements RegistryStore {
  readonly db: Database.Database;
  private rev = 0;
  private readonly s;

  /** Migrations applied when this store was opened. */
  readonly applied: string[];

  /** `file` is a path, or `:memory:`. */
  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.applied = migrations.migrate(this.db);
    const db = this.db;
    this.s = {
      insert: db.prepare(
        'INSERT INTO registry_entries (name, version, namespace, kind, status, search, doc) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      insertFts: db.prepare('INSERT INTO registry_entries_fts (rowid, search) VALUES (?, ?)'),
      has: db.prepare('SELECT 1 FROM registry_entries WHERE name = ? AND version = ?'),
      versions: db.prepare('SELECT seq, doc FROM registry_entries WHERE name = ? ORDER BY seq DESC'),
      all: db.prepare('SELECT doc FROM registry_entries ORDER BY seq'),
      allRaw: db.prepare('SELECT doc FROM registry_entries ORDER BY seq').pluck(),
      update: db.prepare('UPDATE registry_entries SET status = ?, doc = ? WHERE seq = ?'),
      dirGet: db.prepare('SELECT doc FROM registry_directory WHERE id = ?'),
      dirInsert: db.prepare('INSERT INTO registry_directory (id, seq, doc) VALUES (?, ?, ?)'),
      dirUpdate: db.prepare('UPDATE registry_directory SET doc = ? WHERE id = ?'),
      dirAll: db.prepare('SELECT doc FROM registry_directory ORDER BY seq'),
      dirCount: db.prepare('SELECT COUNT(*) AS n FROM registry_directory'),
      recallInsert: db.prepare('INSERT INTO registry_recalls (seq, doc) VALUES (?, ?)'),
      recallsSince: db.prepare('SELECT seq, doc FROM registry_recalls WHERE seq > ? ORDER BY seq'),
      recallLast: db.prepare('SELECT COALESCE(MAX(seq), 0) AS n FROM registry_recalls'),
      chPut: db.prepare('INSERT INTO registry_challenges (id, namespace, method, doc, created) VALUES (?, ?, ?, ?, ?)'),
      chPending: db.prepare(
        'SELECT doc FROM registry_challenges WHERE namespace = ? AND method = ? AND used = 0 ORDER BY created DESC, rowid DESC LIMIT 1',
      ),
      chUse: db.prepare('UPDATE registry_challenges SET used = 1 WHERE id = ?'),
      proofPut: db.prepare(
        'INSERT INTO registry_proofs (namespace, method, verified_at) VALUES (?, ?, ?) ON CONFLICT (namespace) DO UPDATE SET method = excluded.method, verified_at = excluded.verified_at',
      ),
      proofGet: db.prepare('SELECT namespace, method, verified_at FROM registry_proofs WHERE namespace = ?'),
      tokenPut: db.prepare('INSERT INTO registry_tokens (id, hash, namespaces, admin, created_at) VALUES (?, ?, ?, ?, ?)'),
      tokenGet: db.prepare('SELECT id, hash, namespaces, admin, created_at FROM registry_tokens WHERE hash = ? AND revoked_at IS NULL'),
      tokenAdmin: db.prepare('SELECT 1 FROM registry_tokens WHERE admin = 1 AND revoked_at IS NULL LIMIT 1'),
      tokenRevoke: db.prepare('UPDATE registry_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    };
  }

  private insertOne(e: RegistryEntry): boolean {
    const text = searchText(e);
    const r = this.s.insert.run(e.name, e.version, namespaceOf(e.name), e.kind, e.status, text, JSON.stringify(e));
    if (r.changes === 0) return false;
    this.s.insertFts.run(r.lastInsertRowid, text);
    return true;
  }

  async insertEntry(entry: RegistryEntry): Promise<'inserted' | 'exists'> {
    const ok = this.db.transaction(() => this.insertOne(entry))();
    if (ok) this.rev++;
    return ok ? 'inserted' : 'exists';
  }

  async insertEntries(entries: readonly RegistryEntry[]): Promise<number> {
    const n = this.db.transaction(() => {
      let count = 0;
      for (const e of entries) if (this.insertOne(e)) count++;
      return count;
    })();
    if (n > 0) this.rev++;
    return n;
  }

  async hasVersion(name: string, version: string): Promise<boolean> {
    return this.s.has.get(name, version) !== undefined;
  }

  async versions(name: string): Promise<RegistryEntry[]> {
    return (this.s.versions.all(name) as { doc: string }[]).map((r) => JSON.parse(r.doc) as RegistryEntry);
  }

  async search(query: SearchQuery): Promise<RegistryEntry[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    let from = 'registry_entries e';
    let order = 'e.seq DESC';
    if (query.q !== undefined && query.q.trim() !== '') {
      const match = ftsQuery(query.q);
      if (match === null) return [];
      // Drive the query from the text index, newest rowid first (CROSS JOIN fixes the loop order), so a broad
      // match stops as soon as the limit is reached.
      from = 'registry_entries_fts f CROSS JOIN registry_entries e ON e.seq = f.rowid';
      where.push('registry_entries_fts MATCH ?');
      args.push(match);
      order = 'f.rowid DESC';
    }
    if (query.kind !== undefined) {
      where.push('e.kind = ?');
      args.push(query.kind);
    }
    if (query.status !== undefined) {
      where.push('e.status = ?');
      args.push(query.status);
    } else if (!query.includeDeleted) {
      where.push("e.status <> 'deleted'");
    }
    const sql = `SELECT e.doc FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ?`;
    args.push(query.limit);
    return (this.db.prepare(sql).all(...args) as { doc: string }[]).map((r) => JSON.parse(r.doc) as RegistryEntry);
  }

  async allEntries(): Promise<RegistryEntry[]> {
    return (this.s.all.all() as { doc: string }[]).map((r) => JSON.parse(r.doc) as RegistryEntry);
  }

  async entriesJson(): Promise<string> {
    const parts: string[] = [];
    for (const r of this.s.allRaw.iterate() as IterableIterator<string>) parts.push(r);
    return `[${parts.join(',')}]`;
  }

  async setStatus(
    change: StatusChange,
    recallFor?: (changed: RegistryEntry[], seq: number) => Record<string, unknown>,
  ): Promise<StatusResult | null> {
    const result = this.db.transaction((): StatusResult | null => {
      const rows = this.s.versions.all(change.name) as { seq: number; doc: string }[];
      const targets = rows.filter((r) => change.version === undefined || (JSON.parse(r.doc) as RegistryEntry).version === change.version);
      if (targets.length === 0) return null;
      const changed: RegistryEntry[] = [];
      for (const row of targets) {
        const entry = JSON.parse(row.doc) as RegistryEntry;
        if (entry.status === change.status) continue;
        const next: RegistryEntry = { ...entry, status: change.status };
        next['x-status'] = change.message === undefined ? { changedAt: change.at } : { changedAt: change.at, message: change.message };
        this.s.update.run(change.status, JSON.stringify(next), row.seq);
        changed.push(next);
      }
      const out: StatusResult = { changed };
      const recalled = changed.filter((e) => e.status === 'recalled');
      if (recallFor && recalled.length > 0) {
        const seq = (this.s.recallLast.get() as { n: number }).n + 1;
        const doc = recallFor(recalled, seq);
        this.s.recallInsert.run(seq, JSON.stringify(doc));
        out.recall = { seq, doc };
      }
      return out;
    })();
    if (result && result.changed.length > 0) this.rev++;
    return result;
  }

  async getDirectoryEntry(id: string): Promise<DirectoryEntry | null> {
    const row = this.s.dirGet.get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as DirectoryEntry) : null;
  }

  async putDirectoryEntry(entry: DirectoryEntry): Promise<'inserted' | 'updated'> {
    const r = this.db.transaction(() => {
      if (this.s.dirGet.get(entry.id)) {
        this.s.dirUpdate.run(JSON.stringify(entry), entry.id);
        return 'updated' as const;
      }
      this.s.dirInsert.run(entry.id, (this.s.dirCount.get() as { n: number }).n + 1, JSON.stringify(entry));
      return 'inserted' as const;
    })();
    this.rev++;
    return r;
  }

  async allDirectoryEntries(): Promise<DirectoryEntry[]> {
    return (this.s.dirAll.all() as { doc: string }[]).map((r) => JSON.parse(r.doc) as DirectoryEntry);
  }

  async recalls(since: number): Promise<RecallRecord[]> {
    return (this.s.recallsSince.all(since) as { seq: number; doc: string }[]).map((r) => ({ seq: r.seq, doc: JSON.parse(r.doc) }));
  }

  async lastRecallSeq(): Promise<number> {
    return (this.s.recallLast.get() as { n: number }).n;
  }

  async putChallenge(c: Challenge): Promise<void> {
    this.s.chPut.run(c.id, c.namespace, c.method, JSON.stringify(c), Date.parse(c.createdAt));
  }

  async pendingChallenge(namespace: string, method: Challenge['method']): Promise<Challenge | null> {
    const row = this.s.chPending.get(namespace, method) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as Challenge) : null;
  }

  async consumeChallenge(id: string): Promise<void> {
    this.s.chUse.run(id);
  }

  async recordProof(p: NamespaceProof): Promise<void> {
    this.s.proofPut.run(p.namespace, p.method, p.verifiedAt);
  }

  async proofOf(namespace: string): Promise<NamespaceProof | null> {
    const row = this.s.proofGet.get(namespace) as { namespace: string; method: NamespaceProof['method']; verified_at: string } | undefined;
    return row ? { namespace: row.namespace, method: row.method, verifiedAt: row.verified_at } : null;
  }

  async putToken(t: TokenRecord): Promise<void> {
    this.s.tokenPut.run(t.id, t.hash, JSON.stringify(t.namespaces), t.admin ? 1 : 0, t.createdAt);
  }

  async tokenByHash(hash: string): Promise<TokenRecord | null> {
    const row = this.s.tokenGet.get(hash) as
      | { id: string; hash: string; namespaces: string; admin: number; created_at: string }
      | undefined;
    if (!row) return null;
    return {
      id: row.id,
      hash: row.hash,
      namespaces: JSON.parse(row.namespaces) as string[],
      admin: row.admin === 1,
      createdAt: row.created_at,
    };
  }

  async revokeToken(id: string, at: string): Promise<boolean> {
    return this.s.tokenRevoke.run(at, id).changes > 0;
  }

  async hasAdminToken(): Promise<boolean> {
    return this.s.tokenAdmin.get() !== undefined;
  }

  async revision(): Promise<number> {
    return this.rev;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
