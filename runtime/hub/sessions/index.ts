/**
 * The sessions domain: a hub's cook sessions and their tasks (spec §2.2, §4.3; semantics §8). The service
 * (sessions.ts), the driver that follows each session's executions (driver.ts), answering tasks (tasks.ts), the rules a
 * person acknowledges before a start (rules.ts) and the REST routes (routes.ts, which also holds the `/svc/v1` prefix
 * every domain's routes use). Its tables are the hub's own (../store.ts, migration `hub.1`). The pure rules it applies
 * live in safety/dry-run.ts and services/planning/ (context, household policy).
 *
 * This file is the domain's entry: code outside runtime/hub/sessions/ imports the domain from here only
 * (runtime/app/import-layers.test.ts checks it).
 */
export * from './routes.js';
export * from './sessions.js';
export * from './tasks.js';
