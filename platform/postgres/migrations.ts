/**
 * Schema migrations for PostgreSQL, the counterpart of platform/sqlite/migrations.ts: each feature contributes
 * migrations with process-unique ids (`<feature>.<n>`); `migrate` applies, in registration order, every one not
 * yet recorded in `schema_migrations`, each in its own transaction. Several processes may start against one
 * database at once: a transaction-level advisory lock makes them take turns, so each migration runs once.
 * Migrations are append-only: never edit one that has shipped, add a new id.
 */
import type { Pool, PoolClient } from 'pg';

export interface PgMigration {
  /** Unique id, `<feature>.<n>`. */
  id: string;
  /** SQL run inside the migration's transaction. */
  sql: string;
}

/** Advisory lock key shared by every Hearth migration run ('hearth' as a 32-bit number). */
const LOCK_KEY = 0x68656172;

export class PgMigrationRegistry {
  private readonly list: PgMigration[] = [];

  add(...migrations: PgMigration[]): this {
    for (const m of migrations) {
      if (this.list.some((x) => x.id === m.id)) throw new Error(`migration ${m.id} is registered twice`);
      this.list.push(m);
    }
    return this;
  }

  get migrations(): readonly PgMigration[] {
    return this.list;
  }

  /** Apply pending migrations; returns the ids applied now. */
  async migrate(pool: Pool): Promise<string[]> {
    const client = await pool.connect();
    const applied: string[] = [];
    try {
      for (const m of this.list) {
        if (await applyOne(client, m)) applied.push(m.id);
      }
    } finally {
      client.release();
    }
    return applied;
  }
}

async function applyOne(client: PoolClient, m: PgMigration): Promise<boolean> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const done = await client.query('SELECT 1 FROM schema_migrations WHERE id = $1', [m.id]);
    if (done.rowCount !== 0) {
      await client.query('COMMIT');
      return false;
    }
    await client.query(m.sql);
    await client.query('INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)', [m.id, Date.now()]);
    await client.query('COMMIT');
    return true;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
}

/** Run `fn` in a transaction on one pooled connection; rolls back when it throws. */
export async function inTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
