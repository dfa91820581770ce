/**
 * The kitchen's own records besides sessions: inventory items (quantity, unit, expiry), order intents (created
 * `awaiting_approval`; only a person approves) and the operating mode (notifications: notify.ts). Real rows in the store.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Money } from '../../../core/mandate.js';
import type { Principal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import { actorOf } from '../sessions/index.js';
import { SettingsRepo } from '../store.js';
import { type Actor, SVC_VERSION } from '../types.js';
import type { MandateRef } from './mandates.js';

export interface InventoryItem {
  id: string;
  name: string;
  quantity: number;
  unit: string;
  expires?: string;
  updatedAt: string;
}

export interface InventoryPatch {
  upsert?: { id?: string; name: string; quantity: number; unit: string; expires?: string }[];
  remove?: string[];
}

export interface OrderLine {
  item: string;
  quantity: number;
  unit: string;
  note?: string;
}

export interface OrderIntent {
  svc: string;
  kind: 'OrderIntent';
  id: string;
  state: 'awaiting_approval' | 'approved' | 'canceled';
  lines: OrderLine[];
  note?: string;
  createdBy: Actor;
  createdAt: string;
  approvedBy?: Actor;
  approvedAt?: string;
  /** Where the agent means to order (checked against the mandate's allowedProviders). */
  provider?: string;
  /** What the order is expected to cost (checked against the mandate's caps). */
  estimatedTotal?: Money;
  /** The verified mandate an agent created the order under. */
  mandate?: MandateRef;
}

export interface OrderExtras {
  provider?: string;
  estimatedTotal?: Money;
  mandate?: MandateRef;
}

export { MODES } from '../../../services/planning/policy.js';

export class KitchenService {
  private readonly settings: SettingsRepo;

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {
    this.settings = new SettingsRepo(db);
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  inventory(): { svc: string; items: InventoryItem[]; expiringSoon: string[] } {
    const rows = this.db.prepare('SELECT doc FROM hub_inventory ORDER BY id').all() as { doc: string }[];
    const items = rows.map((r) => JSON.parse(r.doc) as InventoryItem);
    const soon = this.now() + 3 * 24 * 3600 * 1000;
    const expiringSoon = items.filter((i) => i.expires !== undefined && Date.parse(i.expires) <= soon).map((i) => i.id);
    return { svc: SVC_VERSION, items, expiringSoon };
  }

  patchInventory(p: InventoryPatch): ReturnType<KitchenService['inventory']> {
    const at = this.iso();
    this.db.transaction(() => {
      for (const id of p.remove ?? []) this.db.prepare('DELETE FROM hub_inventory WHERE id = ?').run(id);
      for (const u of p.upsert ?? []) {
        const id =
          u.id ??
          u.name
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-')
            .replace(/^-|-$/g, '')
            .slice(0, 64);
        if (id === '') throw new ProblemError('validation-failed', 'body /upsert: an item needs an id or a name with letters or digits');
        const item: InventoryItem = {
          id,
          name: u.name,
          quantity: u.quantity,
          unit: u.unit,
          ...(u.expires ? { expires: u.expires } : {}),
          updatedAt: at,
        };
        this.db
          .prepare(
            'INSERT INTO hub_inventory (id, doc, expires, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, expires = excluded.expires, updated_at = excluded.updated_at',
          )
          .run(id, JSON.stringify(item), item.expires ?? null, this.now());
      }
    })();
    return this.inventory();
  }

  /** What orders not canceled under the mandate `hash` are expected to cost, in `currency`. */
  spentUnder(hash: string, currency: string): number {
    return this.orders(1000)
      .filter((o) => o.mandate?.hash === hash && o.state !== 'canceled' && o.estimatedTotal?.currency === currency)
      .reduce((sum, o) => sum + (o.estimatedTotal?.amount ?? 0), 0);
  }

  createOrder(lines: OrderLine[], note: string | undefined, by: Principal, extras: OrderExtras = {}): OrderIntent {
    const order: OrderIntent = {
      svc: SVC_VERSION,
      kind: 'OrderIntent',
      id: `ord-${randomUUID()}`,
      state: 'awaiting_approval',
      lines,
      ...(note ? { note } : {}),
      ...extras,
      createdBy: actorOf(by),
      createdAt: this.iso(),
    };
    this.db
      .prepare('INSERT INTO hub_orders (id, state, doc, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
      .run(order.id, order.state, JSON.stringify(order), this.now(), this.now());
    return order;
  }

  order(id: string): OrderIntent {
    const row = this.db.prepare('SELECT doc FROM hub_orders WHERE id = ?').get(id) as { doc: string } | undefined;
    if (!row) throw new ProblemError('not-found', `no order ${id} on this hub`);
    return JSON.parse(row.doc) as OrderIntent;
  }

  orders(limit = 100): OrderIntent[] {
    return (this.db.prepare('SELECT doc FROM hub_orders ORDER BY created_at DESC, id LIMIT ?').all(limit) as { doc: string }[]).map(
      (r) => JSON.parse(r.doc) as OrderIntent,
    );
  }

  /** Only a person approves an order intent. */
  approveOrder(id: string, by: Principal): OrderIntent {
    if (by.kind !== 'human')
      throw new ProblemError('not-human-approver', 'only a person’s token can approve an order; an agent can only create the intent');
    const order = this.order(id);
    if (order.state !== 'awaiting_approval') throw new ProblemError('conflict', `order ${id} is ${order.state}`);
    order.state = 'approved';
    order.approvedBy = actorOf(by);
    order.approvedAt = this.iso();
    this.db
      .prepare('UPDATE hub_orders SET state = ?, doc = ?, updated_at = ? WHERE id = ?')
      .run(order.state, JSON.stringify(order), this.now(), id);
    return order;
  }

  mode(): { mode: string; setAt?: string } {
    const raw = this.settings.get('mode');
    return raw ? (JSON.parse(raw) as { mode: string; setAt: string }) : { mode: 'normal' };
  }

  setMode(mode: string): { mode: string; setAt: string } {
    const v = { mode, setAt: this.iso() };
    this.settings.set('mode', JSON.stringify(v));
    return v;
  }
}
