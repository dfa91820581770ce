/**
 * The PostgreSQL registry store, for operators who run the registry on a database they already have, or run
 * several registry processes on one database. Same contract as the SQLite store (store.ts); the rules are kept
 * by the schema (postgres-schema.ts), so they hold across processes. Search: each entry keeps the words of its
 * name, description and tags (lower case, accents removed) as a tsvector with a GIN index; every word of `q`
 * must begin one of them, as in the SQLite store.
 */
import pg from 'pg';
import { inTransaction } from '../../../platform/postgres/migrations.js';
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
import { registryPgMigrations } from './postgres-schema.js';
import type { RegistryStore, StatusResult } from './store.js';

/** Lower case, accents removed, split into words of letters, digits and `_` (as the SQLite tokenizer does). */
export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((w) => w !== '')
    .map((w) => w.slice(0, 200));
}

function entryWords(e: RegistryEntry): string {
  return [...new Set(words([e.name, e.description ?? '', ...(Array.isArray(e.tags) ? e.tags : [])].join(' ')))].join(' ');
}

/** The tsquery for `q`: every word as a prefix, all required; null when `q` has no words. */
export function tsQuery(q: string): string | null {
  const ws = words(q);
  return ws.length === 0 ? null : ws.map((w) => `'${w}':*`).join(' & ');
}

function namespaceOf(name: string): string {
  return name.split('/')[0] ?? '';
}

const parseDoc = <T>(r: { doc: string }): T => JSON.parse(r.doc) as T;

/** Where an error mentions the connection string, do not print its password. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

export class PgRegistryStore implements RegistryStore {
  private rev = 0;
  /** Migrations applied when this store was opened. */
  applied: string[] = [];

  private constructor(readonly pool: pg.Pool) {}

  /** Connect, apply pending migrations, and read the current revision. */
  static async open(url: string, opts: { max?: number } = {}): Promise<PgRegistryStore> {
    const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
    // An idle connection the server drops (restart, failover) must not take the process down; the next
    // query opens a new one.
    pool.on('error', () => undefined);
    const store = new PgRegistryStore(pool);
    try {
      store.applied = await registryPgMigrations.migrate(pool);
      await store.refreshRevision();
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    return store;
  }

  private async refreshRevision(): Promise<number> {
    const r = await this.pool.query<{ rev: string }>('SELECT rev FROM registry_revision');
    this.rev = Number(r.rows[0]?.rev ?? 0);
    return this.rev;
  }

  private async insertMany(entries: readonly RegistryEntry[]): Promise<number> {
    const cols: string[][] = [[], [], [], [], [], [], []];
    for (const e of entries) {
      const row = [e.name, e.version, namespaceOf(e.name), e.kind, e.status, entryWords(e), JSON.stringify(e)];
      for (let i = 0; i < row.length; i++) cols[i]?.push(row[i] as string);
    }
    const r = await this.pool.query(
      `INSERT INTO registry_entries (name, version, namespace, kind, status, words, doc)
       SELECT n, v, ns, k, s, array_to_tsvector(string_to_array(w, ' ')), d
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY
         AS t(n, v, ns, k, s, w, d, o) ORDER BY o
       ON CONFLICT ON CONSTRAINT registry_entries_name_version DO NOTHING`,
      cols,
    );
    return r.rowCount ?? 0;
  }

  async insertEntry(entry: RegistryEntry): Promise<'inserted' | 'exists'> {
    return (await this.insertMany([entry])) === 1 ? 'inserted' : 'exists';
  }

  async insertEntries(entries: readonly RegistryEntry[]): Promise<number> {
    let n = 0;
    for (let i = 0; i < entries.length; i += 2000) n += await this.insertMany(entries.slice(i, i + 2000));
    // After a large import, fresh statistics let the planner pick the word index for rare words instead of
    // walking the whole table newest-first (autovacuum would get there, later).
    if (n >= 1000) await this.pool.query('ANALYZE registry_entries');
    return n;
  }

  async hasVersion(name: string, version: string): Promise<boolean> {
    return ((await this.pool.query('SELECT 1 FROM registry_entries WHERE name = $1 AND version = $2', [name, version])).rowCount ?? 0) > 0;
  }

  async versions(name: string): Promise<RegistryEntry[]> {
    const r = await this.pool.query<{ doc: string }>('SELECT doc FROM registry_entries WHERE name = $1 ORDER BY seq DESC', [name]);
    return r.rows.map(parseDoc<RegistryEntry>);
  }

  async search(query: SearchQuery): Promise<RegistryEntry[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (query.q !== undefined && query.q.trim() !== '') {
      const tq = tsQuery(query.q);
      if (tq === null) return [];
      args.push(tq);
      where.push(`words @@ $${args.length}::tsquery`);
    }
    if (query.kind !== undefined) {
      args.push(query.kind);
      where.push(`kind = $${args.length}`);
    }
    if (query.status !== undefined) {
      args.push(query.status);
      where.push(`status = $${args.length}`);
    } else if (!query.includeDeleted) {
      where.push("status <> 'deleted'");
    }
    args.push(query.limit);
    const sql = `SELECT doc FROM registry_entries${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT $${args.length}`;
    return (await this.pool.query<{ doc: string }>(sql, args)).rows.map(parseDoc<RegistryEntry>);
  }

  async allEntries(): Promise<RegistryEntry[]> {
    return (await this.pool.query<{ doc: string }>('SELECT doc FROM registry_entries ORDER BY seq')).rows.map(parseDoc<RegistryEntry>);
  }

  async entriesJson(): Promise<string> {
    const r = await this.pool.query<{ doc: string }>('SELECT doc FROM registry_entries ORDER BY seq');
    return `[${r.rows.map((x) => x.doc).join(',')}]`;
  }

  async setStatus(
    change: StatusChange,
    recallFor?: (changed: RegistryEntry[], seq: number) => Record<string, unknown>,
  ): Promise<StatusResult | null> {
    return inTransaction(this.pool, async (c): Promise<StatusResult | null> => {
      // Lock the name's rows in one order, so two processes changing the same name take turns.
      const rows = (
        await c.query<{ seq: string; doc: string }>('SELECT seq, doc FROM registry_entries WHERE name = $1 ORDER BY seq DESC FOR UPDATE', [
          change.name,
        ])
      ).rows;
      const targets = rows.filter((r) => change.version === undefined || parseDoc<RegistryEntry>(r).version === change.version);
      if (targets.length === 0) return null;
      const changed: RegistryEntry[] = [];
      for (const row of targets) {
        const entry = parseDoc<RegistryEntry>(row);
        if (entry.status === change.status) continue;
        const next: RegistryEntry = { ...entry, status: change.status };
        next['x-status'] = change.message === undefined ? { changedAt: change.at } : { changedAt: change.at, message: change.message };
        await c.query('UPDATE registry_entries SET status = $1, doc = $2 WHERE seq = $3', [change.status, JSON.stringify(next), row.seq]);
        changed.push(next);
      }
      const out: StatusResult = { changed };
      const recalled = changed.filter((e) => e.status === 'recalled');
      if (recallFor && recalled.length > 0) {
        // Recall numbers are gapless and shared by every process: one writer at a time appends.
        await c.query('LOCK TABLE registry_recalls IN EXCLUSIVE MODE');
        const seq = Number((await c.query<{ n: string }>('SELECT COALESCE(MAX(seq), 0) AS n FROM registry_recalls')).rows[0]?.n ?? 0) + 1;
        const doc = recallFor(recalled, seq);
        await c.query('INSERT INTO registry_recalls (seq, doc) VALUES ($1, $2)', [seq, JSON.stringify(doc)]);
        out.recall = { seq, doc };
      }
      return out;
    });
  }

  async getDirectoryEntry(id: string): Promise<DirectoryEntry | null> {
    const r = await this.pool.query<{ doc: string }>('SELECT doc FROM registry_directory WHERE id = $1', [id]);
    return r.rows[0] ? parseDoc<DirectoryEntry>(r.rows[0]) : null;
  }

  async putDirectoryEntry(entry: DirectoryEntry): Promise<'inserted' | 'updated'> {
    const r = await this.pool.query<{ inserted: boolean }>(
      `INSERT INTO registry_directory (id, doc) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET doc = excluded.doc RETURNING (xmax = 0) AS inserted`,
      [entry.id, JSON.stringify(entry)],
    );
    return r.rows[0]?.inserted ? 'inserted' : 'updated';
  }

  async allDirectoryEntries(): Promise<DirectoryEntry[]> {
    return (await this.pool.query<{ doc: string }>('SELECT doc FROM registry_directory ORDER BY seq')).rows.map(parseDoc<DirectoryEntry>);
  }

  async recalls(since: number): Promise<RecallRecord[]> {
    const r = await this.pool.query<{ seq: string; doc: string }>('SELECT seq, doc FROM registry_recalls WHERE seq > $1 ORDER BY seq', [
      since,
    ]);
    return r.rows.map((x) => ({ seq: Number(x.seq), doc: JSON.parse(x.doc) as Record<string, unknown> }));
  }

  async lastRecallSeq(): Promise<number> {
    return Number((await this.pool.query<{ n: string }>('SELECT COALESCE(MAX(seq), 0) AS n FROM registry_recalls')).rows[0]?.n ?? 0);
  }

  async putChallenge(ch: Challenge): Promise<void> {
    await this.pool.query('INSERT INTO registry_challenges (id, namespace, method, doc, created) VALUES ($1, $2, $3, $4, $5)', [
      ch.id,
      ch.namespace,
      ch.method,
      JSON.stringify(ch),
      Date.parse(ch.createdAt),
    ]);
  }

  async pendingChallenge(namespace: string, method: Challenge['method']): Promise<Challenge | null> {
    const r = await this.pool.query<{ doc: string }>(
      'SELECT doc FROM registry_challenges WHERE namespace = $1 AND method = $2 AND NOT used ORDER BY created DESC, n DESC LIMIT 1',
      [namespace, method],
    );
    return r.rows[0] ? parseDoc<Challenge>(r.rows[0]) : null;
  }

  async consumeChallenge(id: string): Promise<void> {
    await this.pool.query('UPDATE registry_challenges SET used = true WHERE id = $1', [id]);
  }

  async recordProof(p: NamespaceProof): Promise<void> {
    await this.pool.query(
      `INSERT INTO registry_proofs (namespace, method, verified_at) VALUES ($1, $2, $3)
       ON CONFLICT (namespace) DO UPDATE SET method = excluded.method, verified_at = excluded.verified_at`,
      [p.namespace, p.method, p.verifiedAt],
    );
  }

  async proofOf(namespace: string): Promise<NamespaceProof | null> {
    const r = await this.pool.query<{ namespace: string; method: NamespaceProof['method']; verified_at: string }>(
      'SELECT namespace, method, verified_at FROM registry_proofs WHERE namespace = $1',
      [namespace],
    );
    const row = r.rows[0];
    return row ? { namespace: row.namespace, method: row.method, verifiedAt: row.verified_at } : null;
  }

  async putToken(tk: TokenRecord): Promise<void> {
    await this.pool.query('INSERT INTO registry_tokens (id, hash, namespaces, admin, created_at) VALUES ($1, $2, $3, $4, $5)', [
      tk.id,
      tk.hash,
      JSON.stringify(tk.namespaces),
      tk.admin,
      tk.createdAt,
    ]);
  }

  async tokenByHash(hash: string): Promise<TokenRecord | null> {
    const r = await this.pool.query<{ id: string; hash: string; namespaces: string; admin: boolean; created_at: string }>(
      'SELECT id, hash, namespaces, admin, created_at FROM registry_tokens WHERE hash = $1 AND revoked_at IS NULL',
      [hash],
    );
    const row = r.rows[0];
    if (!row) return null;
    return { id: row.id, hash: row.hash, namespaces: JSON.parse(row.namespaces) as string[], admin: row.admin, createdAt: row.created_at };
  }

  async revokeToken(id: string, at: string): Promise<boolean> {
    return (
      ((await this.pool.query('UPDATE registry_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id])).rowCount ?? 0) >
      0
    );
  }

  async hasAdminToken(): Promise<boolean> {
    return ((await this.pool.query('SELECT 1 FROM registry_tokens WHERE admin AND revoked_at IS NULL LIMIT 1')).rowCount ?? 0) > 0;
  }

  /** The database's revision counter: it counts changes made by every process sharing the database. */
  async revision(): Promise<number> {
    return this.refreshRevision();
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
