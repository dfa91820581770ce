/**
 * Where the hub keeps its advice answers so that `apply` can turn one into a session: one table (migration
 * `hub.advice.1`), answers kept 24 h (pruned as new ones arrive). The index has no such store: it keeps nothing.
 */
import type { Database } from 'better-sqlite3';
import type { Migration } from '../../../platform/sqlite/migrations.js';
import type { AdviceStore, StoredAdvice } from '../../../services/advice/index.js';

export const adviceMigration: Migration = {
  id: 'hub.advice.1',
  up(db) {
    db.exec('CREATE TABLE hub_advice (id TEXT PRIMARY KEY, by_principal TEXT NOT NULL, doc TEXT NOT NULL, created_at INTEGER NOT NULL)');
    db.exec('CREATE INDEX hub_advice_created ON hub_advice (created_at)');
  },
};

export const ADVICE_KEEP_MS = 24 * 3600_000;

export class SqliteAdviceStore implements AdviceStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  put(s: StoredAdvice): void {
    const at = this.now();
    this.db.prepare('DELETE FROM hub_advice WHERE created_at < ?').run(at - ADVICE_KEEP_MS);
    this.db
      .prepare('INSERT INTO hub_advice (id, by_principal, doc, created_at) VALUES (?, ?, ?, ?)')
      .run(s.response.responseId, s.by, JSON.stringify(s.response), at);
  }

  get(responseId: string): StoredAdvice | undefined {
    const row = this.db.prepare('SELECT by_principal, doc, created_at FROM hub_advice WHERE id = ?').get(responseId) as
      | { by_principal: string; doc: string; created_at: number }
      | undefined;
    if (!row || row.created_at < this.now() - ADVICE_KEEP_MS) return undefined;
    return { by: row.by_principal, response: JSON.parse(row.doc) as StoredAdvice['response'] };
  }
}
