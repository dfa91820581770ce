/**
 * The event journal: every CloudEvent the hub emits, in order, in SQLite. Its position (`pos`, a monotonic
 * integer) is the SSE `id:` of the event, so `Last-Event-ID` resumes a dropped stream exactly where it stopped.
 * Old rows are pruned: low-value categories (telemetry, heater output) after a short window, the rest later,
 * and the table never grows past a row cap.
 *
 * Telemetry and heater-output rows (the high-rate, low-value categories) are not written one statement at a time:
 * they are queued and written together in one transaction every `flushMs` (default 100 ms) or every 256 rows, so
 * the event loop does not pay a SQLite statement per sample while a safety event may be waiting behind it. Every
 * other event is written at once. Every read (and prune, and `flush()`, which the events feature calls on stop)
 * writes the queue first, so a stream replaying the journal never misses a queued row; a crash loses at most the
 * last `flushMs` of telemetry, which the journal keeps for minutes only anyway (positions then skip ahead on the next
 * start, so a position a client saw live is never handed out again).
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
const BATCHED = new Set(SHORT_LIVED);
/** Most queued rows before they are written without waiting for the timer. */
const MAX_QUEUED = 256;

export interface JournalOptions {
  /** How long a telemetry row may wait to be written with others (default 100 ms). */
  flushMs?: number;
  /** A queued batch could not be written (store closed, disk full); its rows are dropped. */
  onError?: (err: unknown) => void;
}

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
  private queued: { ev: StoredEvent; at: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly writeQueued;

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
    private readonly retention: JournalRetention = DEFAULT_RETENTION,
    private readonly opts: JournalOptions = {},
  ) {
    this.writeQueued = db.transaction((rows: { ev: StoredEvent; at: number }[]) => {
      for (const { ev, at } of rows) this.store(ev, at);
    });
    this.insert = db.prepare('INSERT INTO event_journal (pos, id, type, category, session, at, body) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.after = db.prepare('SELECT pos, category, body FROM event_journal WHERE pos > ? ORDER BY pos LIMIT ?');
    this.byId = db.prepare('SELECT pos FROM event_journal WHERE id = ?');
    this.last = db.prepare('SELECT COALESCE(MAX(pos), 0) AS pos FROM event_journal');
    this.first = db.prepare('SELECT MIN(pos) AS pos FROM event_journal');
    const used = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'event_journal'").get() as { seq: number } | undefined;
    const stored = Math.max(used?.seq ?? 0, (this.last.get() as { pos: number }).pos);
    // A crash may have lost up to MAX_QUEUED queued rows whose positions clients already saw live: skip past them.
    this.seq = stored > 0 ? stored + MAX_QUEUED : 0;
  }

  /** The position the next event will get (positions never repeat, across pruning and restarts). */
  nextPos(): number {
    return this.seq + 1;
  }

  /** Take the next position (in memory; `write` stores the event under it). */
  reserve(): number {
    return ++this.seq;
  }

  /** Store an event under a position from `reserve` (telemetry and heater output: queued, see above). */
  write(ev: StoredEvent): void {
    if (BATCHED.has(ev.category)) {
      this.queued.push({ ev, at: this.now() });
      if (this.queued.length >= MAX_QUEUED) this.flushQuietly();
      else if (!this.timer) {
        this.timer = setTimeout(() => this.flushQuietly(), this.opts.flushMs ?? 100);
        this.timer.unref();
      }
      return;
    }
    this.flush();
    this.store(ev, this.now());
  }

  /** Write the queued rows now (one transaction). Throws if the store cannot take them; they are dropped then. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queued.length === 0) return;
    const rows = this.queued;
    this.queued = [];
    this.writeQueued(rows);
  }

  private flushQuietly(): void {
    try {
      this.flush();
    } catch (err) {
      this.opts.onError?.(err);
    }
  }

  private store(ev: StoredEvent, at: number): void {
    this.insert.run(ev.pos, ev.ce.id, ev.ce.type, ev.category, ev.ce.svcsession ?? null, at, ev.body);
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
    this.flush();
    return (this.after.all(pos, limit) as Row[]).map((r) => ({
      pos: r.pos,
      category: r.category,
      body: r.body,
      ce: JSON.parse(r.body) as SvcCloudEvent,
    }));
  }

  /** The position of the event with CloudEvent id `id`, if it is still journalled. */
  positionOf(id: string): number | undefined {
    this.flush();
    return (this.byId.get(id) as { pos: number } | undefined)?.pos;
  }

  /** The oldest position still journalled, if any. */
  oldest(): number | undefined {
    this.flush();
    return (this.first.get() as { pos: number | null }).pos ?? undefined;
  }

  /** Delete what retention says is too old; returns how many rows went. */
  prune(): number {
    this.flush();
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
