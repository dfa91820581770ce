/**
 * The device's SQLite store (better-sqlite3, WAL) under the data directory. Tables come from migrations that
 * every feature registers in one MigrationRegistry (platform/sqlite/migrations.ts) before the store opens.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../config/config.js';

export type { Database } from 'better-sqlite3';

export const DB_FILE = 'hearth.db';

/** Open (creating it when needed) the store in `dataDir`, or `:memory:` for tests. */
export function openDatabase(dataDir: string | ':memory:'): Database.Database {
  let db: Database.Database;
  if (dataDir === ':memory:') {
    db = new Database(':memory:');
  } else {
    try {
      mkdirSync(dataDir, { recursive: true });
      db = new Database(join(dataDir, DB_FILE));
    } catch (err) {
      throw new ConfigError(
        `${dataDir}: cannot open the data directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
    db.pragma('journal_mode = WAL');
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}
