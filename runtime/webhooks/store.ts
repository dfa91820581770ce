/**
 * Webhook subscriptions and the delivery outbox, in SQLite. The outbox row of a delivery outlives restarts:
 * a new process picks up every pending row when it is due. Secrets are stored as given (the hub needs them to
 * sign); the store file is the hub's own, like its tokens.
 */
import { randomBytes } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Migration } from '../../platform/sqlite/migrations.js';

export const webhookMigrations: Migration[] = [
  {
    id: 'webhooks.1',
    up(db) {
      db.exec(`CREATE TABLE webhook_subscriptions (
        id TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        types TEXT NOT NULL,
        secret TEXT NOT NULL,
        owner TEXT NOT NULL,
        created_at INTEGER NOT NULL)`);
      db.exec(`CREATE TABLE webhook_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
        event_id TEXT NOT NULL,
        body TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        next_at INTEGER NOT NULL,
        done_at INTEGER,
        last_status INTEGER,
        last_error TEXT)`);
      db.exec('CREATE INDEX webhook_outbox_due ON webhook_outbox(state, next_at)');
      db.exec('CREATE INDEX webhook_outbox_sub ON webhook_outbox(subscription_id, state)');
    },
  },
];

export interface Subscription {
  id: string;
  url: string;
  types: string[];
  secret: string;
  owner: string;
  createdAt: string;
}

export interface SubscriptionStats {
  pending: number;
  delivered: number;
  failed: number;
  lastError?: string;
  lastStatus?: number;
}

export interface Delivery {
  id: number;
  subscriptionId: string;
  url: string;
  secret: string;
  eventId: string;
  body: string;
  attempts: number;
  createdAt: number;
}

interface SubRow {
  id: string;
  url: string;
  types: string;
  secret: string;
  owner: string;
  created_at: number;
}

const toSub = (r: SubRow): Subscription => ({
  id: r.id,
  url: r.url,
  types: JSON.parse(r.types) as string[],
  secret: r.secret,
  owner: r.owner,
  createdAt: new Date(r.created_at).toISOString(),
});

export class WebhookStore {
  private cache: Subscription[] | undefined;

  constructor(
    readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  create(input: { url: string; types: string[]; secret: string; owner: string }): Subscription {
    const id = `sub_${randomBytes(8).toString('hex')}`;
    const at = this.now();
    this.db
      .prepare('INSERT INTO webhook_subscriptions (id, url, types, secret, owner, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, input.url, JSON.stringify(input.types), input.secret, input.owner, at);
    this.cache = undefined;
    return { id, ...input, createdAt: new Date(at).toISOString() };
  }

  /** Every subscription (cached; the cache drops on every change). */
  all(): Subscription[] {
    this.cache ??= (this.db.prepare('SELECT * FROM webhook_subscriptions ORDER BY created_at, id').all() as SubRow[]).map(toSub);
    return this.cache;
  }

  get(id: string): Subscription | undefined {
    return this.all().find((s) => s.id === id);
  }

  delete(id: string): boolean {
    const n = this.db.prepare('DELETE FROM webhook_subscriptions WHERE id = ?').run(id).changes;
    this.cache = undefined;
    return n > 0;
  }

  stats(id: string): SubscriptionStats {
    const rows = this.db.prepare('SELECT state, COUNT(*) AS n FROM webhook_outbox WHERE subscription_id = ? GROUP BY state').all(id) as {
      state: string;
      n: number;
    }[];
    const by = Object.fromEntries(rows.map((r) => [r.state, r.n]));
    const last = this.db
      .prepare('SELECT last_status, last_error FROM webhook_outbox WHERE subscription_id = ? AND attempts > 0 ORDER BY id DESC LIMIT 1')
      .get(id) as { last_status: number | null; last_error: string | null } | undefined;
    const s: SubscriptionStats = { pending: by.pending ?? 0, delivered: by.delivered ?? 0, failed: by.failed ?? 0 };
    if (last?.last_error) s.lastError = last.last_error;
    if (last?.last_status) s.lastStatus = last.last_status;
    return s;
  }

  /** Queue one event for each subscription (in one transaction). */
  enqueue(subscriptionIds: string[], eventId: string, body: string): void {
    if (subscriptionIds.length === 0) return;
    const at = this.now();
    const ins = this.db.prepare('INSERT INTO webhook_outbox (subscription_id, event_id, body, created_at, next_at) VALUES (?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const id of subscriptionIds) ins.run(id, eventId, body, at, at);
    })();
  }

  /** Pending deliveries due now, oldest first, skipping `busy` ids. */
  due(limit: number, busy: ReadonlySet<number>): Delivery[] {
    const rows = this.db
      .prepare(
        `SELECT o.id, o.subscription_id, s.url, s.secret, o.event_id, o.body, o.attempts, o.created_at
         FROM webhook_outbox o JOIN webhook_subscriptions s ON s.id = o.subscription_id
         WHERE o.state = 'pending' AND o.next_at <= ? ORDER BY o.next_at, o.id LIMIT ?`,
      )
      .all(this.now(), limit + busy.size) as {
      id: number;
      subscription_id: string;
      url: string;
      secret: string;
      event_id: string;
      body: string;
      attempts: number;
      created_at: number;
    }[];
    return rows
      .filter((r) => !busy.has(r.id))
      .slice(0, limit)
      .map((r) => ({
        id: r.id,
        subscriptionId: r.subscription_id,
        url: r.url,
        secret: r.secret,
        eventId: r.event_id,
        body: r.body,
        attempts: r.attempts,
        createdAt: r.created_at,
      }));
  }

  /** The earliest `next_at` of a pending delivery, if any. */
  nextDue(): number | undefined {
    return (
      (this.db.prepare("SELECT MIN(next_at) AS t FROM webhook_outbox WHERE state = 'pending'").get() as { t: number | null }).t ?? undefined
    );
  }

  delivered(id: number, status: number): void {
    this.db
      .prepare(
        "UPDATE webhook_outbox SET state = 'delivered', attempts = attempts + 1, done_at = ?, last_status = ?, last_error = NULL WHERE id = ?",
      )
      .run(this.now(), status, id);
  }

  /** Record a failed attempt: retry at `nextAt`, or give up (`nextAt` undefined). */
  failed(id: number, error: string, status: number | null, nextAt: number | undefined): void {
    if (nextAt === undefined) {
      this.db
        .prepare(
          "UPDATE webhook_outbox SET state = 'failed', attempts = attempts + 1, done_at = ?, last_status = ?, last_error = ? WHERE id = ?",
        )
        .run(this.now(), status, error.slice(0, 500), id);
    } else {
      this.db
        .prepare('UPDATE webhook_outbox SET attempts = attempts + 1, next_at = ?, last_status = ?, last_error = ? WHERE id = ?')
        .run(nextAt, status, error.slice(0, 500), id);
    }
  }

  /** The subscriptions of `owner` (a token id). */
  ownedBy(owner: string): Subscription[] {
    return this.all().filter((s) => s.owner === owner);
  }

  /** Give up every pending delivery of the subscriptions of these owners (their tokens were revoked); returns how many. */
  dropPendingOf(owners: Iterable<string>, reason: string): number {
    const stmt = this.db.prepare(
      `UPDATE webhook_outbox SET state = 'failed', done_at = ?, last_error = ?
       WHERE state = 'pending' AND subscription_id IN (SELECT id FROM webhook_subscriptions WHERE owner = ?)`,
    );
    let n = 0;
    const at = this.now();
    this.db.transaction(() => {
      for (const owner of owners) n += stmt.run(at, reason.slice(0, 500), owner).changes;
    })();
    return n;
  }

  /** Forget finished deliveries older than `ms`. */
  prune(ms: number): number {
    return this.db.prepare("DELETE FROM webhook_outbox WHERE state != 'pending' AND done_at < ?").run(this.now() - ms).changes;
  }
}
