/**
 * The planning domain: what could be cooked. Plan preview and match over the hub's own recipes
 * (planning-routes.ts, catalog.ts) and advice with its stored answers (advice-routes.ts, advice-store.ts). The pure
 * rules live in services/planning/ (plans, context), services/advice/ and services/index/ (search and match).
 *
 * This file is the domain's entry: code outside runtime/hub/planning/ imports the domain from here only
 * (runtime/app/import-layers.test.ts checks it).
 */
export * from './advice-routes.js';
export * from './advice-store.js';
export * from './catalog.js';
export * from './planning-routes.js';
