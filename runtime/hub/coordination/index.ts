/**
 * The coordination domain: who holds and does what when several actors share a kitchen. Leases on
 * resources (leases*.ts, migration `hub.leases.1`), handoffs between actors (handoffs*.ts) and team plans with their
 * schedule (team*.ts). Its rules are its own: the team schedule (team-schedule.ts) and input checks (team-inputs.ts)
 * are pure and live here.
 *
 * This file is the domain's entry: code outside runtime/hub/coordination/ imports the domain from here only
 * (runtime/app/import-layers.test.ts checks it).
 */

export * from './handoffs.js';
export * from './handoffs-routes.js';
export * from './leases.js';
export * from './leases-routes.js';
export * from './leases-store.js';
export * from './team.js';
export * from './team-routes.js';
