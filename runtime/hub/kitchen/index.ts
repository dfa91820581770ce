/**
 * The kitchen domain: what the household has and wants. Inventory, order intents and the operating mode
 * (kitchen.ts, kitchen-routes.ts), the household's standing constraints (household.ts), mandates on the paths that act
 * for someone (mandates.ts) and principal keys (principal-key-routes.ts). Its tables are the hub's own (../store.ts).
 * The pure rules live in core/mandate.ts (mandate verification) and services/planning/policy.ts (household policy).
 *
 * This file is the domain's entry: code outside runtime/hub/kitchen/ imports the domain from here only
 * (runtime/app/import-layers.test.ts checks it).
 */
export * from './household.js';
export * from './kitchen.js';
export * from './kitchen-routes.js';
export * from './mandates.js';
export * from './principal-key-routes.js';
