/**
 * The safety latch survives a restart: the latched trip is written to the store the moment it latches and
 * cleared when a person resets it, and a process that starts with a latched trip in the store comes back
 * latched (heat off, nothing starts) with the same trip and reason. Every reset is kept with who did it.
 * The control `latch-persisted` is where this acts (safety/controls.ts).
 */
import type { Database } from 'better-sqlite3';
import type { Migration } from '../../platform/sqlite/migrations.js';
import { controlActive } from '../../safety/controls.js';
import type { EventBus } from '../events/bus.js';
import type { SafetySupervisor, SafetyTrip } from './types.js';

export const latchMigration: Migration = {
  id: 'supervisor.latch.1',
  up(db) {
    db.exec(`CREATE TABLE safety_latch (
      id INTEGER PRIMARY KEY CHECK (id = 1), trip TEXT NOT NULL, latched_at TEXT NOT NULL)`);
    db.exec(`CREATE TABLE safety_resets (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, trip_id TEXT NOT NULL, reason TEXT NOT NULL, by TEXT NOT NULL, at TEXT NOT NULL)`);
  },
};

export interface SafetyReset {
  tripId: string;
  reason: string;
  by: string;
  at: string;
}

export class LatchStore {
  private readonly stmts;

  constructor(private readonly db: Database) {
    this.stmts = {
      get: db.prepare('SELECT trip FROM safety_latch WHERE id = 1'),
      // The first trip wins; saving the same trip again (its stated reason added) updates its record.
      put: db.prepare(
        `INSERT INTO safety_latch (id, trip, latched_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET trip = excluded.trip
         WHERE json_valid(safety_latch.trip) AND json_extract(safety_latch.trip, '$.id') = json_extract(excluded.trip, '$.id')`,
      ),
      clear: db.prepare('DELETE FROM safety_latch WHERE id = 1'),
      reset: db.prepare('INSERT INTO safety_resets (trip_id, reason, by, at) VALUES (?, ?, ?, ?)'),
      resets: db.prepare('SELECT trip_id AS tripId, reason, by, at FROM safety_resets ORDER BY seq DESC LIMIT ?'),
    };
  }

  /** The trip a previous process left latched, if any. A row that does not parse still counts as latched. */
  latched(): SafetyTrip | undefined {
    const row = this.stmts.get.get() as { trip: string } | undefined;
    if (!row) return undefined;
    try {
      return JSON.parse(row.trip) as SafetyTrip;
    } catch {
      return {
        id: 'unreadable',
        reason: 'watchdog',
        subject: 'all',
        message: 'a safety stop was latched before the restart; its record could not be read',
        hint: 'Check the appliance and the log, then reset.',
        at: new Date(0).toISOString(),
        action: 'cut_heat',
      };
    }
  }

  save(trip: SafetyTrip): void {
    this.stmts.put.run(JSON.stringify(trip), trip.at);
  }

  cleared(trip: SafetyTrip, by: string, at: string): void {
    this.db.transaction(() => {
      this.stmts.clear.run();
      this.stmts.reset.run(trip.id, trip.reason, by, at);
    })();
  }

  /** The latest resets, newest first. */
  resets(limit = 20): SafetyReset[] {
    return this.stmts.resets.all(limit) as SafetyReset[];
  }
}

/**
 * Restore a latched trip into the supervisor (before anything can start) and keep the store in step with
 * the supervisor's `safety` events from then on. Returns the restored trip, if any.
 */
export function persistLatch(
  store: LatchStore,
  supervisor: Pick<SafetySupervisor, 'restore' | 'status'>,
  bus: EventBus,
): { restored?: SafetyTrip; detach(): void } {
  if (!controlActive('latch-persisted')) return { detach: () => {} };
  const restored = store.latched();
  if (restored) supervisor.restore(restored);
  const now = supervisor.status().trip;
  if (now && !restored) store.save(now);
  const detach = bus.on('safety', (e) => {
    if ((e.kind === 'trip' || e.kind === 'estop') && e.trip) store.save(e.trip);
    else if (e.kind === 'reset' && e.trip) store.cleared(e.trip, e.by ?? 'unknown', e.at);
  });
  return { ...(restored ? { restored } : {}), detach };
}
