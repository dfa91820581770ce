/**
 * The tables of a relief coordinator (one migration, `hub.relief.1`): needs, pledges and allocations kept as JSON
 * documents (schemas/json/relief.schema.json `NeedRecord`, `PledgeRecord`, `AllocationRecord`) with the columns
 * the hub looks them up by (status, the need an allocation is for, when it was posted).
 */
import type { Database } from 'better-sqlite3';
import type { Migration } from '../../../platform/sqlite/migrations.js';
import type { NeedDoc, PledgeDoc, Remaining } from '../../../services/relief/rules.js';
import type { Actor } from '../types.js';

export const reliefMigration: Migration = {
  id: 'hub.relief.1',
  up(db) {
    db.exec(`CREATE TABLE hub_relief_needs (
      id TEXT PRIMARY KEY, status TEXT NOT NULL, doc TEXT NOT NULL, created_at INTEGER NOT NULL)`);
    db.exec(`CREATE TABLE hub_relief_pledges (
      id TEXT PRIMARY KEY, status TEXT NOT NULL, doc TEXT NOT NULL, created_at INTEGER NOT NULL)`);
    db.exec(`CREATE TABLE hub_relief_allocations (
      id TEXT PRIMARY KEY, need_id TEXT NOT NULL, state TEXT NOT NULL, doc TEXT NOT NULL, created_at INTEGER NOT NULL)`);
    db.exec('CREATE INDEX hub_relief_allocations_need ON hub_relief_allocations (need_id, created_at)');
  },
};

export const NEED_STATUSES = ['open', 'fulfilled', 'closed'] as const;
export const PLEDGE_STATUSES = ['open', 'allocated', 'withdrawn'] as const;
export const ALLOCATION_STATES = ['allocated', 'in_transit', 'handed_over', 'cancelled'] as const;

interface Posted {
  $kind: string;
  postedBy: Actor;
  postedAt: string;
  updatedAt: string;
}

/** Who closed a need, withdrew a pledge or cancelled an allocation, when, why, and the allocations cancelled with it. */
export interface Closure {
  by: Actor;
  at: string;
  reason?: string;
  cancelledAllocations?: string[];
}

export interface NeedRecord extends NeedDoc, Posted {
  $kind: 'Need';
  status: (typeof NEED_STATUSES)[number];
  mealsNeeded: number;
  allocated: { meals: number };
  remaining: { meals: number; people: number };
  allocations: string[];
  closed?: Closure;
}

export interface PledgeRecord extends PledgeDoc, Posted {
  $kind: 'Pledge';
  status: (typeof PLEDGE_STATUSES)[number];
  remaining: Remaining;
  allocations: string[];
  withdrawn?: Closure;
}

export interface Ack {
  by: Actor;
  at: string;
  meals?: number;
  note?: string;
}

export interface Handover {
  pledge: string;
  to?: string;
  delivered?: Ack;
  received?: Ack;
}

export interface Assignment {
  pledge: string;
  to?: string;
  pickupAt?: string;
  deliverBy?: string;
  transport?: string;
  meals?: number;
  items?: { ingredientId?: string; name?: string; qty: { value: number; unit: string } }[];
}

export interface AllocationRecord extends Posted {
  $kind: 'Allocation';
  id: string;
  need: string;
  assignments: Assignment[];
  coverage: { meals: number; pct: number };
  state: (typeof ALLOCATION_STATES)[number];
  handovers: Handover[];
  /** The production menu's recipes this hub holds (checked against the need) and those it does not. */
  menuCheck?: { held: string[]; notHeld: string[] };
  cancelled?: Closure;
  [k: string]: unknown;
}

type Row = { doc: string };
type Table = 'hub_relief_needs' | 'hub_relief_pledges';

/** Needs and pledges (one shape of table), newest first. */
class DocTable<T extends { id: string; status: string }> {
  constructor(
    private readonly db: Database,
    private readonly table: Table,
  ) {}

  insert(doc: T, now: number): void {
    this.db
      .prepare(`INSERT INTO ${this.table} (id, status, doc, created_at) VALUES (?, ?, ?, ?)`)
      .run(doc.id, doc.status, JSON.stringify(doc), now);
  }

  update(doc: T): void {
    this.db.prepare(`UPDATE ${this.table} SET status = ?, doc = ? WHERE id = ?`).run(doc.status, JSON.stringify(doc), doc.id);
  }

  get(id: string): T | undefined {
    const row = this.db.prepare(`SELECT doc FROM ${this.table} WHERE id = ?`).get(id) as Row | undefined;
    return row ? (JSON.parse(row.doc) as T) : undefined;
  }

  list(status: string | undefined, limit = 500): T[] {
    const rows = status
      ? this.db.prepare(`SELECT doc FROM ${this.table} WHERE status = ? ORDER BY created_at DESC, id LIMIT ?`).all(status, limit)
      : this.db.prepare(`SELECT doc FROM ${this.table} ORDER BY created_at DESC, id LIMIT ?`).all(limit);
    return (rows as Row[]).map((r) => JSON.parse(r.doc) as T);
  }
}

export class ReliefRepo {
  readonly needs: DocTable<NeedRecord>;
  readonly pledges: DocTable<PledgeRecord>;

  constructor(private readonly db: Database) {
    this.needs = new DocTable<NeedRecord>(db, 'hub_relief_needs');
    this.pledges = new DocTable<PledgeRecord>(db, 'hub_relief_pledges');
  }

  /** Run `fn` in one SQLite transaction (an allocation changes a need, its pledges and itself at once). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  insertAllocation(a: AllocationRecord, now: number): void {
    this.db
      .prepare('INSERT INTO hub_relief_allocations (id, need_id, state, doc, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(a.id, a.need, a.state, JSON.stringify(a), now);
  }

  updateAllocation(a: AllocationRecord): void {
    this.db.prepare('UPDATE hub_relief_allocations SET state = ?, doc = ? WHERE id = ?').run(a.state, JSON.stringify(a), a.id);
  }

  allocation(id: string): AllocationRecord | undefined {
    const row = this.db.prepare('SELECT doc FROM hub_relief_allocations WHERE id = ?').get(id) as Row | undefined;
    return row ? (JSON.parse(row.doc) as AllocationRecord) : undefined;
  }

  allocations(filter: { need?: string; state?: string }, limit = 500): AllocationRecord[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (filter.need) {
      where.push('need_id = ?');
      args.push(filter.need);
    }
    if (filter.state) {
      where.push('state = ?');
      args.push(filter.state);
    }
    const sql = `SELECT doc FROM hub_relief_allocations ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id LIMIT ?`;
    return (this.db.prepare(sql).all(...args, limit) as Row[]).map((r) => JSON.parse(r.doc) as AllocationRecord);
  }
}
