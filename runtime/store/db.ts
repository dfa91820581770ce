/**
 * The device's SQLite store (better-sqlite3, WAL) under the data directory. Tables come from migrations that
 * every feature registers in one MigrationRegistry (platform/sqlite/migrations.ts) before the store opens.
 */
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../config/config.js';

export type { Database } from 'better-sqlite3';

export const DB_FILE = 'hearth.db';

/** What to do when the store cannot be used: restore it, or replace it knowingly (nothing is deleted). */
const REMEDY = 'restore it from a backup, or start this device afresh with `hearth init --force` (it moves the old file aside)';

/**
 * Check an existing store file before SQLite sees it: a zero-byte, unreadable or foreign file is never taken
 * for a new device (SQLite would happily write a fresh, empty store over a truncated one, and the device
 * would forget its tokens, keys and executions without a word).
 */
function checkExistingStore(path: string): void {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new ConfigError(`${path}: cannot read the store (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); ${REMEDY}`);
  }
  if (size === 0)
    throw new ConfigError(`${path}: the store is empty (0 bytes), not a new device: it was truncated or never written; ${REMEDY}`);
  const head = Buffer.alloc(16);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    readSync(fd, head, 0, 16, 0);
  } catch (err) {
    throw new ConfigError(
      `${path}: cannot read the store (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); check its owner and mode, or ${REMEDY}`,
    );
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (head.toString('latin1') !== 'SQLite format 3\u0000')
    throw new ConfigError(`${path}: this is not a SQLite store (its header is wrong); ${REMEDY}`);
}

/** Open (creating it when there is none) the store in `dataDir`, or `:memory:` for tests. */
export function openDatabase(dataDir: string | ':memory:'): Database.Database {
  let db: Database.Database;
  if (dataDir === ':memory:') {
    db = new Database(':memory:');
  } else {
    const path = join(dataDir, DB_FILE);
    try {
      mkdirSync(dataDir, { recursive: true });
    } catch (err) {
      throw new ConfigError(
        `${dataDir}: cannot open the data directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
    checkExistingStore(path);
    try {
      db = new Database(path);
      db.pragma('journal_mode = WAL');
    } catch (err) {
      const code = (err as { code?: string }).code ?? (err as Error).message;
      throw new ConfigError(`${path}: cannot open the store (${code}); ${REMEDY}`);
    }
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

/**
 * `hearth init`: make a fresh, empty store in `dataDir`. An existing store is refused unless `force`, and then
 * moved aside (with its WAL files) to `hearth.db.replaced-<time>`, never deleted. Returns where it went.
 */
export function initDatabase(dataDir: string, opts: { force?: boolean; now?: Date } = {}): { path: string; movedTo?: string } {
  const path = join(dataDir, DB_FILE);
  mkdirSync(dataDir, { recursive: true });
  let movedTo: string | undefined;
  if (existsSync(path)) {
    if (!opts.force) throw new ConfigError(`${path}: a store is already there; \`hearth init --force\` moves it aside and starts afresh`);
    movedTo = `${path}.replaced-${(opts.now ?? new Date()).toISOString().replace(/[:.]/g, '-')}`;
    renameSync(path, movedTo);
    for (const ext of ['-wal', '-shm']) if (existsSync(path + ext)) renameSync(path + ext, movedTo + ext);
  }
  const db = openDatabase(dataDir);
  db.close();
  return movedTo ? { path, movedTo } : { path };
}
