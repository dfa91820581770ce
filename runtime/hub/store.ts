/**
 * The hub's tables in the device store (one migration, `hub.1`): sessions, tasks, inventory items, order
 * intents, notifications and settings (the operating mode). Records are kept as JSON documents with the
 * columns the hub looks them up by.
 */
import type { Database } from 'better-sqlite3';
import type { Migration } from '../../platform/sqlite/migrations.js';
import { prepared } from '../../platform/sqlite/prepared.js';
import type { Session, Task } from './types.js';

export const hubMigration: Migration = {
  id: 'hub.1',
  up(db) {
    db.exec(`CREATE TABLE hub_sessions (
      id TEXT PRIMARY KEY, state TEXT NOT NULL, doc TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`);
    db.exec(`CREATE TABLE hub_tasks (
      id TEXT PRIMARY KEY, session_id TEXT NOT NULL, state TEXT NOT NULL, execution_id TEXT, doc TEXT NOT NULL,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`);
    db.exec('CREATE INDEX hub_tasks_session ON hub_tasks (session_id, created_at)');
    db.exec(`CREATE TABLE hub_inventory (
      id TEXT PRIMARY KEY, doc TEXT NOT NULL, expires TEXT, updated_at INTEGER NOT NULL)`);
    db.exec(`CREATE TABLE hub_orders (
      id TEXT PRIMARY KEY, state TEXT NOT NULL, doc TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`);
    db.exec(`CREATE TABLE hub_notifications (
      id TEXT PRIMARY KEY, doc TEXT NOT NULL, created_at INTEGER NOT NULL)`);
    db.exec('CREATE TABLE hub_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  },
};

export class SessionRepo {
  constructor(private readonly db: Database) {}

  insert(s: Session, now: number): void {
    prepared(this.db, 'INSERT INTO hub_sessions (id, state, doc, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(
      s.id,
      s.state,
      JSON.stringify(s),
      now,
      now,
    );
  }

  update(s: Session, now: number): void {
    prepared(this.db, 'UPDATE hub_sessions SET state = ?, doc = ?, updated_at = ? WHERE id = ?').run(s.state, JSON.stringify(s), now, s.id);
  }

  get(id: string): Session | undefined {
    const row = prepared(this.db, 'SELECT doc FROM hub_sessions WHERE id = ?').get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as Session) : undefined;
  }

  /** Sessions in one of `states`, oldest first. */
  inStates(states: readonly string[]): Session[] {
    const marks = states.map(() => '?').join(', ');
    const rows = prepared(this.db, `SELECT doc FROM hub_sessions WHERE state IN (${marks}) ORDER BY created_at, id`).all(...states) as {
      doc: string;
    }[];
    return rows.map((r) => JSON.parse(r.doc) as Session);
  }

  list(limit = 100): Session[] {
    const rows = prepared(this.db, 'SELECT doc FROM hub_sessions ORDER BY created_at DESC, id LIMIT ?').all(limit) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc) as Session);
  }
}

export class TaskRepo {
  constructor(private readonly db: Database) {}

  insert(t: Task, now: number): void {
    prepared(
      this.db,
      'INSERT INTO hub_tasks (id, session_id, state, execution_id, doc, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(t.id, t.sessionId, t.state, t.executionId ?? null, JSON.stringify(t), now, now);
  }

  update(t: Task, now: number): void {
    prepared(this.db, 'UPDATE hub_tasks SET state = ?, doc = ?, updated_at = ? WHERE id = ?').run(t.state, JSON.stringify(t), now, t.id);
  }

  get(id: string): Task | undefined {
    const row = prepared(this.db, 'SELECT doc FROM hub_tasks WHERE id = ?').get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as Task) : undefined;
  }

  /** Tasks of one session (or every session), oldest first. */
  list(sessionId?: string, limit = 200): Task[] {
    const rows = (
      sessionId === undefined
        ? prepared(this.db, 'SELECT doc FROM hub_tasks ORDER BY created_at, id LIMIT ?').all(limit)
        : prepared(this.db, 'SELECT doc FROM hub_tasks WHERE session_id = ? ORDER BY created_at, id LIMIT ?').all(sessionId, limit)
    ) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc) as Task);
  }

  /** Open tasks of a session (not in a final state). */
  open(sessionId: string): Task[] {
    return this.list(sessionId).filter((t) => !['completed', 'failed', 'canceled', 'rejected'].includes(t.state));
  }
}

export class SettingsRepo {
  constructor(private readonly db: Database) {}

  get(key: string): string | undefined {
    return (prepared(this.db, 'SELECT value FROM hub_settings WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  set(key: string, value: string): void {
    prepared(this.db, 'INSERT INTO hub_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
      key,
      value,
    );
  }
}
