/**
 * The tables of leases and handoffs (one migration, `hub.leases.1`): records kept as JSON documents with the
 * columns the hub looks them up by (state, resource, holder, session, expiry as device-clock milliseconds).
 */
import type { Database } from 'better-sqlite3';
import type { Migration } from '../../../platform/sqlite/migrations.js';
import { prepared } from '../../../platform/sqlite/prepared.js';
import type { Actor } from '../types.js';

export const leasesMigration: Migration = {
  id: 'hub.leases.1',
  up(db) {
    db.exec(`CREATE TABLE hub_leases (
      id TEXT PRIMARY KEY, resource TEXT NOT NULL, state TEXT NOT NULL, holder TEXT NOT NULL, session_id TEXT,
      until INTEGER NOT NULL, doc TEXT NOT NULL, created_at INTEGER NOT NULL)`);
    db.exec('CREATE INDEX hub_leases_state ON hub_leases (state, until)');
    db.exec(`CREATE TABLE hub_handoffs (
      id TEXT PRIMARY KEY, state TEXT NOT NULL, task_id TEXT, expires INTEGER NOT NULL, doc TEXT NOT NULL,
      created_at INTEGER NOT NULL)`);
    db.exec('CREATE INDEX hub_handoffs_state ON hub_handoffs (state, expires)');
  },
};

export const LEASE_STATES = ['granted', 'released', 'expired', 'revoked'] as const;
export type LeaseState = (typeof LEASE_STATES)[number];
export const LEASE_MODES = ['exclusive', 'shared_read'] as const;
export type LeaseMode = (typeof LEASE_MODES)[number];

/** A hold on a physical resource (a device, one of its burners or zones, a vessel, a counter zone). */
export interface Lease {
  svc: string;
  id: string;
  /** `demo:oven`, `demo:hob/pan`, `vessel:pan-28`, `zone:counter-left`: a path; a part is under its device. */
  resource: string;
  /** The session id when a session holds it, else the id of the token that claimed it. */
  holder: string;
  holderKind: 'session' | 'human' | 'agent';
  sessionId?: string;
  mode: LeaseMode;
  state: LeaseState;
  /** When it was granted and when it expires unless renewed (ISO 8601, device clock). */
  from: string;
  until: string;
  claimedBy: Actor;
  renewals: number;
  note?: string;
  ended?: { at: string; reason: string; by?: Actor };
}

export const HANDOFF_STATES = ['proposed', 'accepted', 'completed', 'declined', 'expired'] as const;
export type HandoffState = (typeof HANDOFF_STATES)[number];
export const OPEN_HANDOFF_STATES: readonly HandoffState[] = ['proposed', 'accepted'];

/** A side of a handoff: a person, a robot or appliance (this hub's own device), or an agent. */
export interface HandoffActor {
  kind: 'human' | 'robot' | 'appliance' | 'agent';
  id: string;
  name?: string;
}

export interface HandoffAck {
  by: Actor;
  at: string;
  /** Set when the hub acknowledged for its own device. */
  viaHub?: true;
}

export interface Handoff {
  svc: string;
  id: string;
  from: HandoffActor;
  to: HandoffActor;
  /** What moves: a task id, or an intermediate (`sauce`, `hot pan`). */
  item: string;
  taskId?: string;
  sessionId?: string;
  location?: string;
  hazards?: string[];
  state: HandoffState;
  proposedBy: Actor;
  createdAt: string;
  updatedAt: string;
  /** An open handoff expires at this time (device clock). */
  expiresAt: string;
  /** The receiving side accepts (`to`), then the giving side completes (`from`). */
  acks: { to?: HandoffAck; from?: HandoffAck };
  declined?: { side: 'from' | 'to'; by: Actor; at: string; reason?: string };
}

type Row = { doc: string };

export class LeaseRepo {
  constructor(private readonly db: Database) {}

  insert(l: Lease, until: number, now: number): void {
    prepared(
      this.db,
      'INSERT INTO hub_leases (id, resource, state, holder, session_id, until, doc, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(l.id, l.resource, l.state, l.holder, l.sessionId ?? null, until, JSON.stringify(l), now);
  }

  update(l: Lease, until: number): void {
    prepared(this.db, 'UPDATE hub_leases SET state = ?, until = ?, doc = ? WHERE id = ?').run(l.state, until, JSON.stringify(l), l.id);
  }

  get(id: string): Lease | undefined {
    const row = prepared(this.db, 'SELECT doc FROM hub_leases WHERE id = ?').get(id) as Row | undefined;
    return row ? (JSON.parse(row.doc) as Lease) : undefined;
  }

  /** Granted leases, oldest first. */
  granted(): Lease[] {
    return (prepared(this.db, "SELECT doc FROM hub_leases WHERE state = 'granted' ORDER BY created_at, id").all() as Row[]).map(
      (r) => JSON.parse(r.doc) as Lease,
    );
  }

  /** Granted leases whose expiry is at or before `now`. */
  due(now: number): Lease[] {
    return (
      prepared(this.db, "SELECT doc FROM hub_leases WHERE state = 'granted' AND until <= ? ORDER BY until, id").all(now) as Row[]
    ).map((r) => JSON.parse(r.doc) as Lease);
  }

  /** The newest leases in any state (at most `limit`). */
  recent(limit: number): Lease[] {
    return (prepared(this.db, 'SELECT doc FROM hub_leases ORDER BY created_at DESC, id LIMIT ?').all(limit) as Row[]).map(
      (r) => JSON.parse(r.doc) as Lease,
    );
  }
}

export class HandoffRepo {
  constructor(private readonly db: Database) {}

  insert(h: Handoff, expires: number, now: number): void {
    prepared(this.db, 'INSERT INTO hub_handoffs (id, state, task_id, expires, doc, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      h.id,
      h.state,
      h.taskId ?? null,
      expires,
      JSON.stringify(h),
      now,
    );
  }

  update(h: Handoff): void {
    prepared(this.db, 'UPDATE hub_handoffs SET state = ?, doc = ? WHERE id = ?').run(h.state, JSON.stringify(h), h.id);
  }

  get(id: string): Handoff | undefined {
    const row = prepared(this.db, 'SELECT doc FROM hub_handoffs WHERE id = ?').get(id) as Row | undefined;
    return row ? (JSON.parse(row.doc) as Handoff) : undefined;
  }

  /** Open handoffs of a task. */
  openForTask(taskId: string): Handoff[] {
    return (
      prepared(this.db, "SELECT doc FROM hub_handoffs WHERE task_id = ? AND state IN ('proposed', 'accepted')").all(taskId) as Row[]
    ).map((r) => JSON.parse(r.doc) as Handoff);
  }

  /** Open handoffs whose expiry is at or before `now`. */
  due(now: number): Handoff[] {
    return (
      prepared(this.db, "SELECT doc FROM hub_handoffs WHERE state IN ('proposed', 'accepted') AND expires <= ? ORDER BY expires, id").all(
        now,
      ) as Row[]
    ).map((r) => JSON.parse(r.doc) as Handoff);
  }

  /** Newest first, optionally of one state or one task. */
  list(filter: { state?: string; taskId?: string }, limit = 200): Handoff[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (filter.state) {
      where.push('state = ?');
      args.push(filter.state);
    }
    if (filter.taskId) {
      where.push('task_id = ?');
      args.push(filter.taskId);
    }
    const sql = `SELECT doc FROM hub_handoffs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id LIMIT ?`;
    return (prepared(this.db, sql).all(...args, limit) as Row[]).map((r) => JSON.parse(r.doc) as Handoff);
  }
}
