/**
 * The relief domain: needs, pledges, allocations and handovers on a coordinator hub (relief.ts), their end
 * (relief-lifecycle.ts), their store (relief-store.ts, migration `hub.relief.1`) and routes (relief-routes.ts). The
 * rules checked before an allocation live in services/relief/rules.ts.
 *
 * This file is the domain's entry: code outside runtime/hub/relief/ imports the domain from here only
 * (runtime/app/import-layers.test.ts checks it).
 */

export * from './relief.js';
export * from './relief-routes.js';
export * from './relief-store.js';
