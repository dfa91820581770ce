/**
 * The event journal: every CloudEvent the hub emits, in order, in SQLite. Its position (`pos`, a monotonic
 * integer) is the SSE `id:` of the event, so `Last-Event-ID` resumes a dropped stream exactly where it stopped.
 * Old rows are pruned: low-value categories (telemetry, heater output) after a short window, the rest later,
 * and the table never grows past a row cap.
 */
import type { Database } from 'better-sqlite3';
import type { Migration } from '../../platform/sqlite/migrations.js';
import type { SvcCloudEvent } from './cloudevent.js';

export const journalMigration: Migration = {
  id: 'events.1',
  up(db) {
    db.exec(`CREATE TABLE event_journal (
      pos INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL,
      category TEXT NOT NULL,
      session TEXT,
      at INTEGER NOT NULL,
      body TEXT NOT NULL)`);
    db.exec('CREATE INDEX event_journal_at ON event_journal(at)');
  },
};

/** One journalled event: its position, the CloudEvent and its serialized JSON (sent as is). */
export interface StoredEvent {
  pos: number;
  category: string;
  ce: SvcCloudEvent;
  body: string;
}

export interface JournalRetention {
  /** How long telemetry and heater events are kept (default 10 minutes). */
  shortMs: number;
  /** How long every other event is kept (default 7 days). */
  longMs: number;
  /** Most rows kept (default 200 000). */
  maxRows: number;
}

export const DEFAULT_RETENTION: JournalRetention = { shortMs: 10 * 60_000, longMs: 7 * 86_400_000, maxRows: 200_000 };
const SHORT_LIVED = ['telemetry', 'device'];

interface Row {
  pos: number;
  category: string;
  body: string;
}

export class EventJournal {
  private readonly insert;
  private readonly after;
  private readonly byId;
  private readonly last;
  private readonly first;
  private seq: number;

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
    private readonly retention: JournalRetention = DEFAULT_RETENTION,
  ) {
    this.insert = db.prepare('INSERT INTO event_journal (pos, id, type, category, session, at, body) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.after = db.prepare('SELECT pos, category, body FROM event_journal WHERE pos > ? ORDER BY pos LIMIT ?');
    this.byId = db.prepare('SELECT pos FROM event_journal WHERE id = ?');
    this.last = db.prepare('SELECT COALESCE(MAX(pos), 0) AS pos FROM event_journal');
    this.first = db.prepare('SELECT MIN(pos) AS pos FROM event_journal');
    const used = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'event_journal'").get() as { seq: number } | undefined;
    this.seq = Math.max(used?.seq ?? 0, (this.last.get() as { pos: number }).pos);
  }

  /** The position the next event will get (positions never repeat, across pruning and restarts). */
  nextPos(): number {
    return this.seq + 1;
  }

  /** Take the next position (in memory; `write` stores the event under it). */
  reserve(): number {
    return ++this.seq;
  }

  /** Store an event under a position from `reserve`. */
  write(ev: StoredEvent): void {
    this.insert.run(ev.pos, ev.ce.id, ev.ce.type, ev.category, ev.ce.svcsession ?? null, this.now(), ev.body);
  }

  /** Reserve, build and store in one go; `build` gets the position and returns the CloudEvent. */
  append(category: string, build: (pos: number) => SvcCloudEvent): StoredEvent {
    const pos = this.reserve();
    const ce = build(pos);
    const ev = { pos, category, ce, body: JSON.stringify(ce) };
    this.write(ev);
    return ev;
  }

  /** Events after `pos`, oldest first, at most `limit`. */
  readAfter(pos: number, limit = 1000): StoredEvent[] {
    return (this.after.all(pos, limit) as Row[]).map((r) => ({
      pos: r.pos,
      category: r.category,
      body: r.body,
      ce: JSON.parse(r.body) as SvcCloudEvent,
    }));
  }

  /** The position of the event with CloudEvent id `id`, if it is still journalled. */
  positionOf(id: string): number | undefined {
    return (this.byId.get(id) as { pos: number } | undefined)?.pos;
  }

  /** The oldest position still journalled, if any. */
  oldest(): number | undefined {
    return (this.first.get() as { pos: number | null }).pos ?? undefined;
  }

  /** Delete what retention says is too old; returns how many rows went. */
  prune(): number {
    const now = this.now();
    const marks = SHORT_LIVED.map(() => '?').join(', ');
    let n = this.db
      .prepare(`DELETE FROM event_journal WHERE category IN (${marks}) AND at < ?`)
      .run(...SHORT_LIVED, now - this.retention.shortMs).changes;
    n += this.db.prepare('DELETE FROM event_journal WHERE at < ?').run(now - this.retention.longMs).changes;
    const keepFrom = this.seq - this.retention.maxRows;
    if (keepFrom > 0) n += this.db.prepare('DELETE FROM event_journal WHERE pos <= ?').run(keepFrom).changes;
    return n;
  }
}
