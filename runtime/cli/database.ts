/**
 * The store of a data directory for a one-shot CLI command (`hearth token`, `hearth pair`, `hearth sync`):
 * opened with the command's migrations, a data directory that cannot be opened is a one-line CLI error.
 */
import { resolve } from 'node:path';
import { type Migration, MigrationRegistry } from '../../platform/sqlite/migrations.js';
import { ConfigError } from '../config/config.js';
import { type Database, openDatabase } from '../store/db.js';
import { CliError } from './errors.js';

/** Open the store of `dataDir` (default `var`) and run `migrations`; the caller closes it. */
export function openCliDatabase(dataDir: string | undefined, migrations: Migration[]): Database {
  let db: Database;
  try {
    db = openDatabase(resolve(dataDir ?? 'var'));
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
  try {
    new MigrationRegistry().add(...migrations).migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Run `fn` on the opened store, then close it. */
export function withCliDatabase<T>(dataDir: string | undefined, migrations: Migration[], fn: (db: Database) => T): T {
  const db = openCliDatabase(dataDir, migrations);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
