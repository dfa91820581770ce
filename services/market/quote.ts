/**
 * Quote requests: which providers a request goes to (those whose offers cover at least one item, within the
 * request's country, currency, fulfilment and provider list, and the mandate's allowed providers), and the
 * quote each provider gives, priced from its published offer feed (`source: "offer-feed"`): per-unit prices
 * by the converted quantity (schemas/vocab/units.json), per-pack prices by whole packs. Items a provider does
 * not offer, or cannot price, are listed as unavailable in its quote. Pure: no I/O, ids and time passed in.
 */
import { convert, UnitError } from '../../core/units.js';
import { unitsTable } from '../planning/scale.js';
import type { Market, Money, Offer, Provider } from './documents.js';

export interface QuoteItem {
  ingredientId?: string;
  offerId?: string;
  recipeId?: string;
  quantity?: number;
  unit?: string;
}

export interface QuoteRequestInput {
  items: QuoteItem[];
  country?: string;
  currency?: string;
  fulfillment?: string;
  providers?: string[];
  note?: string;
}

export interface QuoteLine {
  item: number;
  offerId: string;
  title: Record<string, string>;
  quantity: number;
  unit: string;
  unitPrice: Money;
  amount: number;
}

export interface Quote {
  id: string;
  provider: string;
  providerName?: string;
  state: 'awaiting_approval' | 'ordered' | 'approved' | 'superseded';
  lines: QuoteLine[];
  unavailable: number[];
  total: Money;
  source: 'offer-feed';
  validUntil: string;
  orderId?: string;
}

export interface Routed {
  provider: string;
  name?: string;
  items: number[];
  quotes?: string;
}

export interface Routing {
  routedTo: Routed[];
  excluded: { provider: string; reason: string }[];
  quotes: Quote[];
}

const COUNT_UNITS = new Set(['pcs', 'pack', 'kit', 'item', '1']);
/** How long a quote priced from a feed holds. */
export const QUOTE_VALID_MS = 24 * 3600_000;

const cents = (x: number) => Math.round(x * 100);

function covers(o: Offer, item: QuoteItem): boolean {
  if (item.offerId !== undefined) return o.id === item.offerId;
  if (item.ingredientId !== undefined) return o.ingredientId === item.ingredientId;
  if (item.recipeId !== undefined) return (o.recipeIds ?? []).includes(item.recipeId);
  return false;
}

function usable(o: Offer, p: Provider | undefined, r: QuoteRequestInput): string | undefined {
  if (r.country !== undefined && !(p?.area?.countries ?? []).includes(r.country)) return `does not serve ${r.country}`;
  if (r.currency !== undefined && o.pricing.price.currency !== r.currency) return `prices in ${o.pricing.price.currency}`;
  if (r.fulfillment !== undefined && !(o.fulfillment ?? []).includes(r.fulfillment)) return `offers no ${r.fulfillment}`;
  if (o.availability?.inStock === false) return 'out of stock';
  return undefined;
}

/** One priced line of `o` for `item`, or undefined when it cannot be priced from the feed. */
export function priceLine(o: Offer, item: QuoteItem, index: number): QuoteLine | undefined {
  if (o.pricing.model === 'quote_only' || o.pricing.model === 'subscription') return undefined;
  const price = Number(o.pricing.price.amount);
  const unitPrice = { amount: price, currency: o.pricing.price.currency };
  const table = unitsTable();
  try {
    if (o.pricing.unit !== undefined && !COUNT_UNITS.has(o.pricing.unit)) {
      // A price per kg (or l): the requested quantity in that unit, or one pack of the offer.
      const qty =
        item.quantity !== undefined && item.unit !== undefined
          ? convert(item.quantity, item.unit, o.pricing.unit, table)
          : item.quantity === undefined && o.pack
            ? convert(o.pack.value, o.pack.unit, o.pricing.unit, table)
            : item.quantity;
      if (qty === undefined || !(qty > 0)) return undefined;
      return {
        item: index,
        offerId: o.id,
        title: o.title,
        quantity: qty,
        unit: o.pricing.unit,
        unitPrice,
        amount: cents(price * qty) / 100,
      };
    }
    // A price per pack (or per piece): whole packs.
    let packs = 1;
    if (item.quantity !== undefined && item.unit !== undefined && !COUNT_UNITS.has(item.unit)) {
      if (!o.pack) return undefined;
      packs = Math.ceil(convert(item.quantity, item.unit, o.pack.unit, table) / o.pack.value - 1e-9);
    } else if (item.quantity !== undefined) packs = Math.ceil(item.quantity - 1e-9);
    return { item: index, offerId: o.id, title: o.title, quantity: packs, unit: 'pack', unitPrice, amount: (cents(price) * packs) / 100 };
  } catch (err) {
    if (err instanceof UnitError) return undefined;
    throw err;
  }
}

/**
 * Route `r` over `market` and price a quote per provider. `allowed` (a mandate's allowedProviders) and
 * `r.providers` narrow the providers; those left out are listed in `excluded` with the reason.
 */
export function routeQuote(
  market: Market,
  r: QuoteRequestInput,
  opts: { allowed?: readonly string[]; now: Date; newId: () => string },
): Routing {
  const providers = new Map(market.providers.map((p) => [p.id, p]));
  const byProvider = new Map<string, Map<number, Offer[]>>();
  const excluded = new Map<string, string>();
  r.items.forEach((item, i) => {
    for (const o of market.offers) {
      if (!covers(o, item)) continue;
      if (r.providers !== undefined && !r.providers.includes(o.provider)) {
        excluded.set(o.provider, 'not among the providers the request names');
        continue;
      }
      if (opts.allowed !== undefined && !opts.allowed.includes(o.provider)) {
        excluded.set(o.provider, "not among the mandate's allowed providers");
        continue;
      }
      const why = usable(o, providers.get(o.provider), r);
      if (why !== undefined) {
        if (!byProvider.has(o.provider)) excluded.set(o.provider, why);
        continue;
      }
      const items = byProvider.get(o.provider) ?? new Map<number, Offer[]>();
      byProvider.set(o.provider, items);
      items.set(i, [...(items.get(i) ?? []), o]);
      excluded.delete(o.provider);
    }
  });
  const validUntil = new Date(opts.now.getTime() + QUOTE_VALID_MS).toISOString();
  const routedTo: Routed[] = [];
  const quotes: Quote[] = [];
  for (const [provider, items] of [...byProvider.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const p = providers.get(provider);
    routedTo.push({
      provider,
      ...(p?.name !== undefined ? { name: p.name } : {}),
      items: [...items.keys()].sort((a, b) => a - b),
      ...(p?.endpoints?.quotes !== undefined ? { quotes: p.endpoints.quotes } : {}),
    });
    const lines: QuoteLine[] = [];
    const unavailable: number[] = [];
    r.items.forEach((item, i) => {
      const priced = (items.get(i) ?? []).map((o) => priceLine(o, item, i)).filter((l): l is QuoteLine => l !== undefined);
      priced.sort((a, b) => a.amount - b.amount);
      if (priced[0]) lines.push(priced[0]);
      else unavailable.push(i);
    });
    const currencies = new Set(lines.map((l) => l.unitPrice.currency));
    // A provider pricing one request in two currencies gives no single total: its lines cannot be summed.
    if (lines.length === 0 || currencies.size !== 1) continue;
    const total = { amount: lines.reduce((s, l) => s + cents(l.amount), 0) / 100, currency: [...currencies][0] as string };
    quotes.push({
      id: opts.newId(),
      provider,
      ...(p?.name !== undefined ? { providerName: p.name } : {}),
      state: 'awaiting_approval',
      lines,
      unavailable,
      total,
      source: 'offer-feed',
      validUntil,
    });
  }
  return { routedTo, excluded: [...excluded.entries()].map(([provider, reason]) => ({ provider, reason })), quotes };
}
