/**
 * A registry of SQLite migrations. Each feature (executor, tokens, idempotency, hub, sync, …) contributes its
 * own migrations with ids unique across the process (prefix them with the feature: `executor.1`); `migrate`
 * applies, in registration order, every one not yet recorded in the `schema_migrations` table, each in its
 * own transaction. Migrations are append-only: never edit one that has shipped, add a new id.
 */
import type { Database } from 'better-sqlite3';

export interface Migration {
  /** Unique id, `<feature>.<n>`. */
  id: string;
  up(db: Database): void;
}

export class MigrationRegistry {
  private readonly list: Migration[] = [];

  add(...migrations: Migration[]): this {
    for (const m of migrations) {
      if (this.list.some((x) => x.id === m.id)) throw new Error(`migration ${m.id} is registered twice`);
      this.list.push(m);
    }
    return this;
  }

  get migrations(): readonly Migration[] {
    return this.list;
  }

  /** Apply pending migrations; returns the ids applied now. */
  migrate(db: Database, now: () => number = Date.now): string[] {
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
    const done = new Set((db.prepare('SELECT id FROM schema_migrations').all() as { id: string }[]).map((r) => r.id));
    const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
    const applied: string[] = [];
    for (const m of this.list) {
      if (done.has(m.id)) continue;
      db.transaction(() => {
        m.up(db);
        record.run(m.id, now());
      })();
      applied.push(m.id);
    }
    return applied;
  }
}
