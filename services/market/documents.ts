/**
 * Market documents (spec §2.2 "market records"): Provider documents and the offers of OfferFeed (or single
 * Offer) documents, each checked against schemas/json/market.schema.json. The index publishes them on its
 * pages (services/index/build/published.ts); the hub loads a folder of them (`market` in the configuration) to
 * search and to price quote requests. A document that does not hold is refused with its file and the JSON
 * pointer of the fault, never skipped.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../core/canonical.js';
import { type ValidationIssue, validate } from '../../schemas/index.js';

export type Json = Record<string, unknown>;

export interface Money {
  amount: number;
  currency: string;
}

export interface Provider extends Json {
  id: string;
  name: string;
  roles: string[];
  area?: { countries?: string[]; online?: boolean; postalCodes?: string[] };
  credentials?: { type: string; issuer?: string }[];
  endpoints?: Record<string, string>;
}

export interface Offer extends Json {
  id: string;
  provider: string;
  type: string;
  title: Record<string, string>;
  ingredientId?: string;
  recipeIds?: string[];
  deviceClass?: string;
  pack?: { value: number; unit: string };
  dietary?: string[];
  pricing: { model: string; price: { amount: string; currency: string }; unit?: string };
  availability?: { inStock?: boolean; leadTime?: string };
  fulfillment?: string[];
  sponsored?: boolean;
  credentials?: { type: string; issuer?: string }[];
}

export interface Market {
  providers: Provider[];
  offers: Offer[];
}

export class MarketDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MarketDocumentError';
  }
}

export const MARKET_KINDS = ['Provider', 'OfferFeed', 'Offer'] as const;

function issueText(issues: readonly ValidationIssue[]): string {
  return issues
    .slice(0, 3)
    .map((i) => `${i.path || '/'} ${i.message}`)
    .join('; ');
}

function kindOf(doc: Json): string | undefined {
  return typeof doc.$kind === 'string' ? doc.$kind : typeof doc.kind === 'string' ? doc.kind : undefined;
}

/**
 * Check one market document of `file` and return what it adds: a provider, or offers (each naming its
 * provider, the feed's when the offer does not). Throws MarketDocumentError naming the file and the fault.
 */
export function readMarketDocument(file: string, doc: Json): { provider?: Provider; offers: Offer[] } {
  const kind = kindOf(doc);
  if (kind === 'Provider') {
    const r = validate.provider(doc);
    if (!r.valid) throw new MarketDocumentError(`${file}: not a valid Provider: ${issueText(r.issues)}`);
    return { provider: doc as Provider, offers: [] };
  }
  if (kind === 'OfferFeed') {
    const r = validate.offerFeed(doc);
    if (!r.valid) throw new MarketDocumentError(`${file}: not a valid OfferFeed: ${issueText(r.issues)}`);
    const feedProvider = typeof doc.provider === 'string' ? doc.provider : (doc.provider as Provider).id;
    const offers = (doc.offers as Json[]).map((o, i) => {
      const offer = { ...o, provider: typeof o.provider === 'string' ? o.provider : feedProvider } as Offer;
      if (offer.provider !== feedProvider)
        throw new MarketDocumentError(
          `${file}: offer ${i + 1} (${offer.id}) names provider ${offer.provider}, not the feed's ${feedProvider}`,
        );
      return offer;
    });
    return { offers };
  }
  if (kind === 'Offer') {
    const r = validate.offer(doc);
    if (!r.valid) throw new MarketDocumentError(`${file}: not a valid Offer: ${issueText(r.issues)}`);
    if (typeof doc.provider !== 'string') throw new MarketDocumentError(`${file}: a single Offer needs "provider"`);
    const { $kind: _k, kind: _kind, ...offer } = doc;
    return { offers: [offer as Offer] };
  }
  throw new MarketDocumentError(`${file}: a ${JSON.stringify(kind ?? '')} document is not a market document (${MARKET_KINDS.join(', ')})`);
}

/** Collects market documents, refusing a provider or an offer given twice. */
export class MarketBuilder {
  private readonly providers = new Map<string, { file: string; doc: Provider }>();
  private readonly offers = new Map<string, { file: string; doc: Offer }>();

  add(file: string, doc: Json): void {
    const r = readMarketDocument(file, doc);
    if (r.provider) {
      const other = this.providers.get(r.provider.id);
      if (other) throw new MarketDocumentError(`${file}: provider ${r.provider.id} is also given by ${other.file}`);
      this.providers.set(r.provider.id, { file, doc: r.provider });
    }
    for (const o of r.offers) {
      const key = `${o.provider} ${o.id}`;
      const other = this.offers.get(key);
      if (other) throw new MarketDocumentError(`${file}: offer ${o.id} of ${o.provider} is also given by ${other.file}`);
      this.offers.set(key, { file, doc: o });
    }
  }

  market(): Market {
    const by = <T>(m: Map<string, { doc: T }>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v.doc);
    return { providers: by(this.providers), offers: by(this.offers) };
  }
}

/** Read every `*.json` file of `dir` (not recursive) as a market document. Throws MarketDocumentError. */
export function loadMarketDir(dir: string): Market {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new MarketDocumentError(`market folder ${dir} is not a folder`);
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .sort();
  } catch (err) {
    if (err instanceof MarketDocumentError) throw err;
    throw new MarketDocumentError(`market folder ${dir} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const b = new MarketBuilder();
  for (const n of names) {
    const file = join(dir, n);
    let doc: unknown;
    try {
      doc = parseJson(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new MarketDocumentError(`${file}: ${(err as Error).message}`);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new MarketDocumentError(`${file}: not a JSON object`);
    b.add(file, doc as Json);
  }
  return b.market();
}

export const EMPTY_MARKET: Market = { providers: [], offers: [] };
