/**
 * The hub's market tools (spec §4.7): `search_offers` (any token) over the configured offers, and
 * `request_quote` (`order:create`), which routes a QuoteRequest to the providers that offer its items and
 * returns it with their quotes, each `awaiting_approval`. The same service answers REST (market-routes.ts).
 */

import type { Json } from '../../services/index/entry.js';
import { type OfferQuery, offerQuerySchema, type QuoteRequestInput } from '../../services/market/index.js';
import type { MarketService } from '../hub/market/index.js';
import { quoteRequestSchema } from '../hub/market/index.js';
import { type HubTool, scopedTool } from './tool-call.js';

export function marketTools(m: MarketService): HubTool[] {
  return [
    scopedTool<OfferQuery>(
      'search_offers',
      'Search the offers of the providers this hub knows: free text (q) and filters on type, ingredientId, recipeId, provider, country, credential (halal_certified…), maxPrice with currency, inStock. Sponsored offers are labelled.',
      offerQuerySchema,
      (a) => ({ ...m.searchOffers(a) }) as unknown as Json,
      true,
    ),
    scopedTool<QuoteRequestInput & { mandate?: unknown }>(
      'request_quote',
      'Ask for quotes: items by ingredientId, offerId or recipeId with quantities. The request goes to the providers that offer the items (routedTo); each quote comes back awaiting_approval. Ordering one needs a person to approve (POST /svc/v1/quotes/{id}/approve); a mandate, when given, is verified and its allowedProviders narrow the routing.',
      quoteRequestSchema,
      (a, p) => ({ ...m.request(a, p) }) as unknown as Json,
      false,
    ),
  ];
}
