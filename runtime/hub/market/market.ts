/**
 * The hub's market (spec §2.2, §4.7, §5): offers of the configured market folder (`market`, loaded at start),
 * quote requests routed to the providers that offer the items, quotes priced from their feeds, and the way a
 * quote becomes an order. Every quote stays `awaiting_approval`; turning one into an OrderIntent (kitchen.ts,
 * the same order intents as `POST /svc/v1/orders`) keeps it `awaiting_approval` until a person approves. An
 * agent's mandate is verified as for any order (mandates.ts): scope `order_groceries`, allowed providers
 * (which also narrow where a request is routed), per-order and spend caps. Rows in `hub_quote_requests`.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { KeyRecord } from '../../../core/keys.js';
import type { AgentMandate } from '../../../core/mandate.js';
import type { Principal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import type { Migration } from '../../../platform/sqlite/migrations.js';
import {
  type Market,
  type OfferQuery,
  type OfferResults,
  type Quote,
  type QuoteRequestInput,
  type Routed,
  routeQuote,
  searchOffers,
} from '../../../services/market/index.js';
import type { EventBus } from '../../events/bus.js';
import type { KitchenService, MandateRef, OrderIntent } from '../kitchen/index.js';
import { checkMandate, orderExtras } from '../kitchen/index.js';
import { actorOf } from '../sessions/index.js';
import { type Actor, SVC_VERSION } from '../types.js';

export const marketMigration: Migration = {
  id: 'hub.market.1',
  up(db) {
    db.exec(`CREATE TABLE hub_quote_requests (
      id TEXT PRIMARY KEY, state TEXT NOT NULL, doc TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`);
  },
};

export interface QuoteRequestRecord {
  svc: string;
  kind: 'QuoteRequest';
  id: string;
  state: 'unrouted' | 'awaiting_approval' | 'ordered' | 'approved';
  items: QuoteRequestInput['items'];
  country?: string;
  currency?: string;
  fulfillment?: string;
  note?: string;
  routedTo: Routed[];
  excluded: { provider: string; reason: string }[];
  quotes: Quote[];
  createdBy: Actor;
  createdAt: string;
  mandate?: MandateRef;
}

export interface MarketDeps {
  db: Database;
  now(): number;
  bus: EventBus;
  kitchen: KitchenService;
  market(): Market;
  mandateKeys(): readonly KeyRecord[];
}

export class MarketService {
  constructor(private readonly d: MarketDeps) {}

  private iso(): string {
    return new Date(this.d.now()).toISOString();
  }

  searchOffers(q: OfferQuery): OfferResults {
    return searchOffers(this.d.market(), q);
  }

  /** Route a quote request and price a quote per provider; every quote awaits a person's approval. */
  request(input: QuoteRequestInput & { mandate?: unknown }, by: Principal): QuoteRequestRecord {
    const { mandate, ...r } = input;
    let ref: MandateRef | undefined;
    let allowed: string[] | undefined;
    if (mandate !== undefined) {
      ref = checkMandate(mandate, this.d.mandateKeys(), by, { scope: 'order_groceries' });
      allowed = (mandate as AgentMandate).allowedProviders;
    }
    const routing = routeQuote(this.d.market(), r, {
      now: new Date(this.d.now()),
      newId: () => `qt-${randomUUID()}`,
      ...(allowed !== undefined ? { allowed } : {}),
    });
    if (allowed !== undefined && routing.routedTo.length === 0 && routing.excluded.length > 0)
      throw new ProblemError('policy-deny', "no provider that offers these items is among the mandate's allowed providers", {
        mandateReason: 'provider',
        excluded: routing.excluded,
      });
    const rec: QuoteRequestRecord = {
      svc: SVC_VERSION,
      kind: 'QuoteRequest',
      id: `qr-${randomUUID()}`,
      state: routing.quotes.length > 0 ? 'awaiting_approval' : 'unrouted',
      items: r.items,
      ...(r.country !== undefined ? { country: r.country } : {}),
      ...(r.currency !== undefined ? { currency: r.currency } : {}),
      ...(r.fulfillment !== undefined ? { fulfillment: r.fulfillment } : {}),
      ...(r.note !== undefined ? { note: r.note } : {}),
      routedTo: routing.routedTo,
      excluded: routing.excluded,
      quotes: routing.quotes,
      createdBy: actorOf(by),
      createdAt: this.iso(),
      ...(ref ? { mandate: ref } : {}),
    };
    this.d.db
      .prepare('INSERT INTO hub_quote_requests (id, state, doc, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
      .run(rec.id, rec.state, JSON.stringify(rec), this.d.now(), this.d.now());
    this.d.bus.emit('market', {
      kind: 'quote.requested',
      at: rec.createdAt,
      requestId: rec.id,
      routedTo: rec.routedTo.map((x) => x.provider),
      items: rec.items.length,
    });
    for (const q of rec.quotes)
      this.d.bus.emit('market', {
        kind: 'quote.received',
        at: rec.createdAt,
        requestId: rec.id,
        quoteId: q.id,
        provider: q.provider,
        total: q.total,
      });
    return rec;
  }

  /** A quote request, with the state of the order its quote became. */
  get(id: string): QuoteRequestRecord {
    const row = this.d.db.prepare('SELECT doc FROM hub_quote_requests WHERE id = ?').get(id) as { doc: string } | undefined;
    if (!row) throw new ProblemError('not-found', `no quote request ${id} on this hub`);
    const rec = JSON.parse(row.doc) as QuoteRequestRecord;
    // The order may have been approved on /svc/v1/orders/{id}/approve: show it here too.
    for (const q of rec.quotes)
      if (q.state === 'ordered' && q.orderId !== undefined && this.orderState(q.orderId) === 'approved') {
        q.state = 'approved';
        rec.state = 'approved';
      }
    return rec;
  }

  private orderState(id: string): string | undefined {
    try {
      return this.d.kitchen.order(id).state;
    } catch {
      return undefined;
    }
  }

  private save(rec: QuoteRequestRecord): void {
    this.d.db
      .prepare('UPDATE hub_quote_requests SET state = ?, doc = ?, updated_at = ? WHERE id = ?')
      .run(rec.state, JSON.stringify(rec), this.d.now(), rec.id);
  }

  private quoteOf(rec: QuoteRequestRecord, quoteId: string): Quote {
    const q = rec.quotes.find((x) => x.id === quoteId);
    if (!q) throw new ProblemError('not-found', `quote request ${rec.id} has no quote ${quoteId}`);
    if (Date.parse(q.validUntil) <= this.d.now() && q.state === 'awaiting_approval')
      throw new ProblemError('conflict', `quote ${quoteId} expired at ${q.validUntil}; request a new one`);
    return q;
  }

  /**
   * Turn a quote into an OrderIntent (`awaiting_approval`): the provider, the total as its estimate and the
   * quote's lines. An agent's mandate is checked against that provider and amount (caps, allowed providers).
   */
  order(id: string, quoteId: string, by: Principal, mandate?: unknown): { quoteRequest: QuoteRequestRecord; order: OrderIntent } {
    const rec = this.get(id);
    const q = this.quoteOf(rec, quoteId);
    if (q.state !== 'awaiting_approval') throw new ProblemError('conflict', `quote ${quoteId} is ${q.state}`);
    const lines = q.lines.map((l) => ({
      item: (l.title.en ?? Object.values(l.title)[0] ?? l.offerId).slice(0, 100),
      quantity: l.quantity,
      unit: l.unit,
      note: `offer ${l.offerId} of ${q.provider}`,
    }));
    const extras = orderExtras(this.d.kitchen, this.d.mandateKeys(), by, {
      lines,
      provider: q.provider,
      estimatedTotal: q.total,
      ...(mandate !== undefined ? { mandate } : {}),
    });
    const order = this.d.kitchen.createOrder(lines, `quote ${q.id} (request ${rec.id})`, by, extras);
    for (const other of rec.quotes) if (other.id !== q.id && other.state === 'awaiting_approval') other.state = 'superseded';
    q.state = 'ordered';
    q.orderId = order.id;
    rec.state = 'ordered';
    this.save(rec);
    this.d.bus.emit('market', {
      kind: 'order.created',
      at: order.createdAt,
      requestId: rec.id,
      quoteId: q.id,
      orderId: order.id,
      provider: q.provider,
      total: q.total,
      state: order.state,
    });
    return { quoteRequest: rec, order };
  }

  /** A person approves a quote: its OrderIntent (made now if the quote was not ordered yet) is approved. */
  approve(id: string, quoteId: string, by: Principal): { quoteRequest: QuoteRequestRecord; order: OrderIntent } {
    if (by.kind !== 'human')
      throw new ProblemError('not-human-approver', 'only a person’s token can approve a quote; an agent can request quotes and order one');
    let rec = this.get(id);
    let q = this.quoteOf(rec, quoteId);
    if (q.state === 'awaiting_approval') {
      rec = this.order(id, quoteId, by).quoteRequest;
      q = this.quoteOf(rec, quoteId);
    }
    if (q.state !== 'ordered' || q.orderId === undefined) throw new ProblemError('conflict', `quote ${quoteId} is ${q.state}`);
    const order = this.d.kitchen.approveOrder(q.orderId, by);
    q.state = 'approved';
    rec.state = 'approved';
    this.save(rec);
    this.d.bus.emit('market', {
      kind: 'order.approved',
      at: order.approvedAt ?? this.iso(),
      requestId: rec.id,
      quoteId: q.id,
      orderId: order.id,
      provider: q.provider,
      total: q.total,
      state: order.state,
    });
    return { quoteRequest: rec, order };
  }
}
