/**
 * Test helpers for the event transports: an in-memory (or file) store with the tables they need, a token
 * store, the bus and the event hub, wired the way the hub process wires them.
 */
import Database from 'better-sqlite3';
import { TokenStore, tokenGrantsMigration, tokensMigration } from '../../platform/http/auth.js';
import { MigrationRegistry } from '../../platform/sqlite/migrations.js';
import { webhookMigrations } from '../webhooks/store.js';
import { EventBus } from './bus.js';
import { EventHub } from './hub.js';
import { EventJournal, journalMigration } from './journal.js';

export interface Kitchen {
  db: Database.Database;
  tokens: TokenStore;
  bus: EventBus;
  journal: EventJournal;
  hub: EventHub;
  errors: unknown[];
}

export function openStore(file = ':memory:'): Database.Database {
  const db = new Database(file);
  if (file !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // as the hub's store (runtime/store/db.ts)
  db.pragma('foreign_keys = ON');
  new MigrationRegistry().add(tokensMigration, tokenGrantsMigration, journalMigration, ...webhookMigrations).migrate(db);
  return db;
}

export function makeKitchen(opts: { file?: string; kitchenId?: string; now?: () => number } = {}): Kitchen {
  const db = openStore(opts.file);
  const errors: unknown[] = [];
  const bus = new EventBus((err) => errors.push(err));
  const journal = new EventJournal(db, opts.now);
  const hub = new EventHub({ bus, journal, kitchenId: opts.kitchenId ?? 'k1', onError: (err) => errors.push(err) });
  hub.start();
  return { db, tokens: new TokenStore(db), bus, journal, hub, errors };
}

/** A safety trip payload as the supervisor emits it. */
export function tripEvent(at = new Date().toISOString(), subject = 'oil-max') {
  return {
    kind: 'trip' as const,
    action: 'heat_off_all' as const,
    message: `oil temperature above the limit ${subject}`,
    at,
    trip: {
      id: 'trip-1',
      reason: 'over_limit' as const,
      subject,
      message: 'oil over 190 °C',
      hint: 'let the oil cool',
      at,
      action: 'cut_heat',
      reading: 201,
      limit: 190,
    },
  };
}

/**
 * Wait until `check` is true (polling), or fail after `ms`. The bound only limits how long a broken run hangs:
 * it is generous so a loaded machine never fails a test that would pass.
 */
export async function until(check: () => boolean, ms = 30_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
