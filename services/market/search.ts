/**
 * Offer search, the same on the index (`GET /v1/offers`, MCP `search_offers`) and on the hub (over its
 * configured market): free text over titles, ids and the provider's name (case and accents ignored), and
 * filters on type, ingredient, recipe, provider, country (the provider's area), credential (dietary claims
 * and credentials of the offer or its provider), price and stock. Sponsored offers stay labelled.
 */
import type { Market, Offer, Provider } from './documents.js';

export interface OfferQuery {
  q?: string;
  type?: string;
  ingredientId?: string;
  recipeId?: string;
  provider?: string;
  country?: string;
  credential?: string;
  maxPrice?: number;
  currency?: string;
  inStock?: boolean;
  limit?: number;
  offset?: number;
}

export interface OfferHit extends Offer {
  providerName?: string;
}

export interface OfferResults {
  total: number;
  items: OfferHit[];
  next_offset?: number;
}

export const OFFER_PAGE_MAX = 100;

/** Lower case without accents or Arabic diacritics, for matching. */
export function fold(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f\u064b-\u065f\u0670]/g, '')
    .toLowerCase();
}

function haystack(o: Offer, p: Provider | undefined): string {
  return fold(
    [
      o.id,
      o.type,
      o.ingredientId ?? '',
      ...(o.ingredientId ? [o.ingredientId.split('.').pop()?.replace(/_/g, ' ') ?? ''] : []),
      ...Object.values(o.title),
      ...(o.recipeIds ?? []),
      ...(o.dietary ?? []),
      o.deviceClass ?? '',
      p?.name ?? '',
    ].join(' '),
  );
}

function credentialsOf(o: Offer, p: Provider | undefined): string[] {
  return [...(o.dietary ?? []), ...(o.credentials ?? []).map((c) => c.type), ...(p?.credentials ?? []).map((c) => c.type)];
}

/** Price of an offer in currency units (the published decimal string), or undefined for a quote-only offer. */
export function offerPrice(o: Offer): { amount: number; currency: string } | undefined {
  if (o.pricing.model === 'quote_only') return undefined;
  return { amount: Number(o.pricing.price.amount), currency: o.pricing.price.currency };
}

/** Whether one offer passes every filter of `q`. */
export function offerMatches(o: Offer, p: Provider | undefined, q: OfferQuery): boolean {
  if (q.type !== undefined && o.type !== q.type) return false;
  if (q.ingredientId !== undefined && o.ingredientId !== q.ingredientId) return false;
  if (q.recipeId !== undefined && !(o.recipeIds ?? []).includes(q.recipeId)) return false;
  if (q.provider !== undefined && o.provider !== q.provider) return false;
  if (q.country !== undefined && !(p?.area?.countries ?? []).includes(q.country)) return false;
  if (q.credential !== undefined && !credentialsOf(o, p).includes(q.credential)) return false;
  if (q.inStock === true && o.availability?.inStock === false) return false;
  if (q.currency !== undefined && o.pricing.price.currency !== q.currency) return false;
  if (q.maxPrice !== undefined) {
    const price = offerPrice(o);
    if (!price || price.amount > q.maxPrice) return false;
  }
  const words = fold(q.q ?? '')
    .split(/[^\p{L}\p{N}_.:-]+/u)
    .filter((w) => w !== '');
  if (words.length > 0) {
    const hay = haystack(o, p);
    if (!words.every((w) => hay.includes(w))) return false;
  }
  return true;
}

/** The offers of `market` that match `q`, a page of them (default 20, at most OFFER_PAGE_MAX). */
export function searchOffers(market: Market, q: OfferQuery): OfferResults {
  const providers = new Map(market.providers.map((p) => [p.id, p]));
  const all = market.offers.filter((o) => offerMatches(o, providers.get(o.provider), q));
  const offset = Math.max(0, q.offset ?? 0);
  const limit = Math.min(OFFER_PAGE_MAX, Math.max(1, q.limit ?? 20));
  const items = all.slice(offset, offset + limit).map((o): OfferHit => {
    const name = providers.get(o.provider)?.name;
    return name !== undefined ? { ...o, providerName: name } : { ...o };
  });
  const next = offset + limit;
  return { total: all.length, items, ...(next < all.length ? { next_offset: next } : {}) };
}

/** JSON Schema of the query, for the MCP tools and the hub's REST route. */
export const offerQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', maxLength: 200 },
    type: { type: 'string', maxLength: 40 },
    ingredientId: { type: 'string', maxLength: 128 },
    recipeId: { type: 'string', maxLength: 200 },
    provider: { type: 'string', maxLength: 200 },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
    credential: { type: 'string', maxLength: 100 },
    maxPrice: { type: 'number', minimum: 0, maximum: 1e9 },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    inStock: { type: 'boolean' },
    limit: { type: 'integer', minimum: 1, maximum: OFFER_PAGE_MAX },
    offset: { type: 'integer', minimum: 0, maximum: 100000 },
  },
} as const;

/**
 * Read a URL query (strings) into an OfferQuery; throws an Error saying which parameter is wrong.
 */
export function offerQueryFromUrl(raw: Record<string, unknown>): OfferQuery {
  const q: OfferQuery = {};
  const s = (k: string): string | undefined => {
    const v = raw[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw new Error(`query parameter ${k} is given more than once`);
    return v;
  };
  const known = new Set(Object.keys(offerQuerySchema.properties));
  for (const k of Object.keys(raw)) if (!known.has(k)) throw new Error(`unknown query parameter ${k}`);
  for (const k of ['q', 'type', 'ingredientId', 'recipeId', 'provider', 'credential'] as const) {
    const v = s(k);
    if (v !== undefined) {
      if (v.length > 200) throw new Error(`${k} is longer than 200 characters`);
      q[k] = v;
    }
  }
  const country = s('country');
  if (country !== undefined) {
    if (!/^[A-Z]{2}$/.test(country)) throw new Error('country must be an ISO 3166 code of two capital letters (EG)');
    q.country = country;
  }
  const currency = s('currency');
  if (currency !== undefined) {
    if (!/^[A-Z]{3}$/.test(currency)) throw new Error('currency must be an ISO 4217 code of three capital letters (USD)');
    q.currency = currency;
  }
  const max = s('maxPrice');
  if (max !== undefined) {
    if (!/^[0-9]{1,9}(\.[0-9]{1,4})?$/.test(max)) throw new Error('maxPrice must be a decimal number like 12.50');
    q.maxPrice = Number(max);
  }
  const stock = s('inStock');
  if (stock !== undefined) {
    if (stock !== 'true' && stock !== 'false') throw new Error('inStock must be true or false');
    q.inStock = stock === 'true';
  }
  for (const k of ['limit', 'offset'] as const) {
    const v = s(k);
    if (v === undefined) continue;
    if (!/^[0-9]{1,6}$/.test(v)) throw new Error(`${k} must be a whole number`);
    const n = Number(v);
    if (k === 'limit' && (n < 1 || n > OFFER_PAGE_MAX)) throw new Error(`limit must be 1 to ${OFFER_PAGE_MAX}`);
    q[k] = n;
  }
  return q;
}
