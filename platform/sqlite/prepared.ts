/**
 * A statement prepared once per database and SQL text, then reused: for repositories whose methods run on the
 * hub's hot paths (every supervisor sample, every execution event, the one-second lease sweep), where
 * preparing the same SQL on every call cost more than running it.
 */
import type { Database, Statement } from 'better-sqlite3';

const byDb = new WeakMap<Database, Map<string, Statement>>();

export function prepared(db: Database, sql: string): Statement {
  let stmts = byDb.get(db);
  if (!stmts) {
    stmts = new Map();
    byDb.set(db, stmts);
  }
  let stmt = stmts.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    stmts.set(sql, stmt);
  }
  return stmt;
}
