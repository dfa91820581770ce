/**
 * The offers an index serves for search (`GET /v1/offers`, MCP `search_offers`): its own market pages
 * (`/v1/market/offers.json`, `/v1/market/providers.json`, written and checked by `hearth index build`), read
 * again whenever the served catalog version changes. A page that cannot be read answers as empty.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../../core/canonical.js';
import { EMPTY_MARKET, type Market, type Offer, type Provider } from '../../market/documents.js';
import { PUBLISHED_PAGES } from '../build/published.js';

function entries(dir: string, rel: string): unknown[] {
  try {
    const page = parseJson(readFileSync(join(dir, rel), 'utf8')) as { entries?: unknown };
    return Array.isArray(page.entries) ? page.entries : [];
  } catch {
    return [];
  }
}

export class OfferPages {
  private version: string | undefined;
  private market: Market = EMPTY_MARKET;

  constructor(
    private readonly dir: string,
    private readonly catalogVersion: () => string,
  ) {}

  get(): Market {
    const v = this.catalogVersion();
    if (v !== this.version) {
      this.version = v;
      this.market = {
        providers: entries(this.dir, PUBLISHED_PAGES.providers.path) as Provider[],
        offers: entries(this.dir, PUBLISHED_PAGES.offers.path) as Offer[],
      };
    }
    return this.market;
  }
}
