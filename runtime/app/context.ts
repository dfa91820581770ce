/**
 * The one context object every feature of the `hearth start` process shares, and the Feature contract.
 *
 * A feature is `{name, migrations?, start(ctx), stop?(ctx)}`. The app opens the store, applies every
 * feature's migrations (one registry), starts the features in order (each may add routes to `ctx.http`,
 * listen on `ctx.bus`, use `ctx.executor`, …), compiles the routes, calls each `ready`, then listens; it stops them in reverse order.
 * See docs/executor.md ("Adding a feature").
 */
import type { Database } from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ManualClock } from '../../drivers/clock.js';
import type { SimControl } from '../../drivers/rig.js';
import type { Clock, Rig } from '../../drivers/types.js';
import type { TokenStore } from '../../platform/http/auth.js';
import type { IdempotencyStore } from '../../platform/http/idempotency.js';
import type { Migration, MigrationRegistry } from '../../platform/sqlite/migrations.js';
import type { HearthConfig } from '../config/config.js';
import type { DeviceConfig } from '../config/device.js';
import type { RecipeCatalog } from '../config/recipes.js';
import type { EventBus } from '../events/bus.js';
import type { Executor } from '../executor/executor.js';
import type { PrincipalKeyStore } from '../store/principal-keys.js';
import type { Supervisor } from '../supervisor/supervisor.js';

export interface AppContext {
  config: HearthConfig;
  log: Logger;
  bus: EventBus;
  /** The device clock (simulated time on the simulated rig). */
  clock: Clock;
  /** Set when simulated time only moves on request (`--sim-speed manual`). */
  manualClock?: ManualClock;
  /** Public base URL (known once listening when the port is 0). */
  baseUrl(): string;
  db: Database;
  migrations: MigrationRegistry;
  http: FastifyInstance;
  device: DeviceConfig;
  recipes: RecipeCatalog;
  rig: Rig & { sim?: SimControl };
  supervisor: Supervisor;
  /** Available once the core feature has started (after migrations). */
  tokens: TokenStore;
  idempotency: IdempotencyStore;
  /** Ed25519 keys of the principals agents act for (mandates verify against them). */
  principalKeys: PrincipalKeyStore;
  executor: Executor;
}

export interface Feature {
  name: string;
  /** Tables this feature needs; ids `<feature>.<n>`, append-only. */
  migrations?: Migration[];
  start?(ctx: AppContext): Promise<void> | void;
  /** Called once every feature has started and the HTTP routes are compiled, just before listening. */
  ready?(ctx: AppContext): Promise<void> | void;
  /** Called once the HTTP server listens: `ctx.baseUrl()` has the real port now (print URLs here, not before). */
  listening?(ctx: AppContext): Promise<void> | void;
  /** Undo start: stop timers, close connections. Heat is already off when features stop. */
  stop?(ctx: AppContext): Promise<void> | void;
}
