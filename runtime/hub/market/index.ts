/**
 * The market domain: offers, quote requests, quotes and orders made from them (market.ts, market-routes.ts).
 * The pure rules (routing a request, choosing a quote) live in services/market/.
 *
 * This file is the domain's entry: code outside runtime/hub/market/ imports the domain from here only
 * (runtime/app/import-layers.test.ts checks it).
 */

export * from './market.js';
export * from './market-routes.js';
