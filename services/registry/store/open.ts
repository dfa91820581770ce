/**
 * Choosing and opening the registry's store. `--db` takes a `postgres://` (or `postgresql://`) URL for
 * PostgreSQL, or a SQLite file (a path, or `sqlite:<path>`); without it the store is `registry.db` in the data
 * directory, the embedded default. Opening applies pending schema migrations, so a start is also a migration.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type IdempotencyKeys, IdempotencyStore } from '../../../platform/http/idempotency.js';
import { PgIdempotencyStore } from '../../../platform/http/idempotency-postgres.js';
import { PgRegistryStore, redactUrl } from './postgres-store.js';
import { SqliteRegistryStore } from './sqlite-store.js';
import type { RegistryStore } from './store.js';

export type StoreLocation = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

export class StoreLocationError extends Error {}

/** Where the store is: `db` when given, else `registry.db` in `dataDir`, else in memory. */
export function storeLocation(opts: { db?: string | undefined; dataDir?: string | undefined }): StoreLocation {
  const db = opts.db?.trim();
  if (db !== undefined && db !== '') {
    if (/^postgres(ql)?:\/\//i.test(db)) {
      try {
        new URL(db);
      } catch {
        throw new StoreLocationError(`--db ${JSON.stringify(redactUrl(db))} is not a valid postgres:// URL`);
      }
      return { kind: 'postgres', url: db };
    }
    if (/^sqlite:/i.test(db)) return { kind: 'sqlite', file: db.slice('sqlite:'.length) || ':memory:' };
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(db)) {
      throw new StoreLocationError(`--db must be a postgres:// URL or a SQLite file, not ${JSON.stringify(redactUrl(db))}`);
    }
    return { kind: 'sqlite', file: db };
  }
  return opts.dataDir ? { kind: 'sqlite', file: join(opts.dataDir, 'registry.db') } : { kind: 'sqlite', file: ':memory:' };
}

/** The location as printed (passwords hidden). */
export function describeLocation(loc: StoreLocation): string {
  return loc.kind === 'postgres' ? redactUrl(loc.url) : loc.file;
}

export interface OpenedStore {
  store: RegistryStore;
  /** Idempotency keys kept in the same database. */
  idempotency: IdempotencyKeys;
  /** Migration ids applied by this opening. */
  applied: string[];
}

export async function openRegistryStore(loc: StoreLocation, now: () => number = Date.now): Promise<OpenedStore> {
  if (loc.kind === 'postgres') {
    let store: PgRegistryStore;
    try {
      store = await PgRegistryStore.open(loc.url);
    } catch (err) {
      throw new StoreLocationError(`cannot open the registry database ${redactUrl(loc.url)}: ${(err as Error).message}`);
    }
    return { store, idempotency: new PgIdempotencyStore(store.pool, { now }), applied: store.applied };
  }
  if (loc.file !== ':memory:') mkdirSync(dirname(loc.file), { recursive: true });
  let store: SqliteRegistryStore;
  try {
    store = new SqliteRegistryStore(loc.file);
  } catch (err) {
    throw new StoreLocationError(`cannot open the registry database ${loc.file}: ${(err as Error).message}`);
  }
  const idempotency = new IdempotencyStore(store.db, { now });
  // One process owns a SQLite file: claims left by a crash can be dropped at start.
  idempotency.clearInFlight();
  return { store, idempotency, applied: store.applied };
}
