/**
 * Idempotency keys on PostgreSQL: the same rules as `IdempotencyStore` (idempotency.ts), for servers whose
 * processes share one database. The claim is one transaction: insert the key, or lock the existing row and
 * decide; so two processes receiving the same key at once see one `new` and one `in_flight` (or a replay).
 *
 * A process that starts cannot know whether another one is still working on a claim, so claims are not
 * cleared at start as the SQLite store does; instead a claim older than `staleMs` (default 5 minutes) counts
 * as abandoned by a process that died, and the next request may take it over.
 */
import type { Pool } from 'pg';
import { inTransaction, type PgMigration } from '../postgres/migrations.js';
import { type BeginResult, type IdempotencyKeys, type IdempotencyScope, MIN_RETENTION_MS, type StoredResponse } from './idempotency.js';

export const pgIdempotencyMigration: PgMigration = {
  id: 'platform.idempotency.1',
  sql: `CREATE TABLE idempotency_keys (
      principal TEXT NOT NULL, route TEXT NOT NULL, key TEXT NOT NULL,
      body_hash TEXT NOT NULL, state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
      status INTEGER, headers TEXT, body TEXT,
      created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
      PRIMARY KEY (principal, route, key));
    CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);`,
};

interface Row {
  body_hash: string;
  state: string;
  status: number;
  headers: string;
  body: string;
  created_at: string;
  expires_at: string;
}

export class PgIdempotencyStore implements IdempotencyKeys {
  private readonly ttlMs: number;
  private readonly staleMs: number;
  private readonly now: () => number;
  private lastPurge = 0;

  constructor(
    private readonly pool: Pool,
    opts: { ttlMs?: number; staleMs?: number; now?: () => number } = {},
  ) {
    this.ttlMs = Math.max(opts.ttlMs ?? MIN_RETENTION_MS, MIN_RETENTION_MS);
    this.staleMs = opts.staleMs ?? 5 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  async begin(scope: IdempotencyScope, hash: string): Promise<BeginResult> {
    const now = this.now();
    if (now - this.lastPurge > 60_000) await this.purgeExpired();
    const key = [scope.principal, scope.route, scope.key];
    return inTransaction(this.pool, async (c): Promise<BeginResult> => {
      const ins = await c.query(
        `INSERT INTO idempotency_keys (principal, route, key, body_hash, state, created_at, expires_at)
         VALUES ($1, $2, $3, $4, 'in_flight', $5, $6) ON CONFLICT DO NOTHING`,
        [...key, hash, now, now + this.ttlMs],
      );
      if (ins.rowCount === 1) return { kind: 'new' };
      const found = await c.query<Row>(
        'SELECT body_hash, state, status, headers, body, created_at, expires_at FROM idempotency_keys WHERE principal = $1 AND route = $2 AND key = $3 FOR UPDATE',
        key,
      );
      const row = found.rows[0];
      const live = row !== undefined && Number(row.expires_at) > now;
      const stale = row !== undefined && row.state === 'in_flight' && Number(row.created_at) + this.staleMs <= now;
      if (row && live && !stale) {
        if (row.body_hash !== hash) return { kind: 'reused' };
        if (row.state === 'in_flight') return { kind: 'in_flight' };
        return {
          kind: 'replay',
          response: { status: row.status, headers: JSON.parse(row.headers) as Record<string, string>, body: row.body },
        };
      }
      await c.query(
        `UPDATE idempotency_keys SET body_hash = $4, state = 'in_flight', status = NULL, headers = NULL, body = NULL,
         created_at = $5, expires_at = $6 WHERE principal = $1 AND route = $2 AND key = $3`,
        [...key, hash, now, now + this.ttlMs],
      );
      return { kind: 'new' };
    });
  }

  async complete(scope: IdempotencyScope, response: StoredResponse): Promise<void> {
    await this.pool.query(
      "UPDATE idempotency_keys SET state = 'done', status = $1, headers = $2, body = $3 WHERE principal = $4 AND route = $5 AND key = $6 AND state = 'in_flight'",
      [response.status, JSON.stringify(response.headers), response.body, scope.principal, scope.route, scope.key],
    );
  }

  async abandon(scope: IdempotencyScope): Promise<void> {
    await this.pool.query("DELETE FROM idempotency_keys WHERE principal = $1 AND route = $2 AND key = $3 AND state = 'in_flight'", [
      scope.principal,
      scope.route,
      scope.key,
    ]);
  }

  async purgeExpired(): Promise<number> {
    this.lastPurge = this.now();
    return (await this.pool.query('DELETE FROM idempotency_keys WHERE expires_at <= $1', [this.lastPurge])).rowCount ?? 0;
  }
}
