/**
 * The core feature of `hearth start`: the rig and its safety supervisor, tokens and idempotency keys, the
 * executor (which stops whatever a previous process left active), the Core API, and the simulator's control
 * surface when the rig is simulated.
 */
import { installBearerAuth, TokenStore, tokenGrantsMigration, tokensMigration } from '../../platform/http/auth.js';
import { IdempotencyStore, idempotencyMigration, installIdempotency } from '../../platform/http/idempotency.js';
import type { Migration } from '../../platform/sqlite/migrations.js';
import { Executor } from '../executor/executor.js';
import { registerCoreRoutes } from '../http/core-routes.js';
import { PROTECTED_RESOURCE_PATH, registerProtectedResourceMetadata } from '../http/resource-metadata.js';
import { registerSimRoutes } from '../http/sim-routes.js';
import { SCOPES } from '../hub/types.js';
import { executionsMigration } from '../store/executions.js';
import { PrincipalKeyStore, principalKeysMigration } from '../store/principal-keys.js';
import { incidentsMigration, recallsMigration } from '../store/recalls.js';
import { trackHeat } from '../supervisor/heat-marker.js';
import { LatchStore, latchMigration, persistLatch } from '../supervisor/latch-store.js';
import type { AppContext, Feature } from './context.js';

export const coreMigrations: Migration[] = [
  tokensMigration,
  tokenGrantsMigration,
  idempotencyMigration,
  executionsMigration,
  recallsMigration,
  incidentsMigration,
  principalKeysMigration,
  latchMigration,
];

/**
 * `dataDir`: where the "heat is on" marker lives (runtime/supervisor/heat-marker.ts), for a store on disk; a start
 * after an end with heat on comes back latched `unclean_stop`, and a clean stop removes the marker.
 */
export function coreFeature(opts: { simulated: boolean; tickMs?: number; dataDir?: string }): Feature {
  let heat: { clear(): void } | undefined;
  return {
    name: 'core',
    async start(ctx: AppContext) {
      await ctx.rig.open();
      ctx.rig.allHeatOff();
      // A stop latched before a restart stays latched (before the executor can start anything).
      const latch = persistLatch(new LatchStore(ctx.db), ctx.supervisor, ctx.bus);
      if (latch.restored) ctx.log.warn({ trip: latch.restored }, 'a safety stop latched before the restart is still latched');
      if (opts.dataDir) heat = trackHeat(opts.dataDir, ctx, latch.restored);
      const now = () => ctx.clock.now();
      ctx.tokens = new TokenStore(ctx.db, Date.now);
      ctx.idempotency = new IdempotencyStore(ctx.db, { now: Date.now });
      ctx.idempotency.clearInFlight();
      ctx.principalKeys = new PrincipalKeyStore(ctx.db);
      installBearerAuth(ctx.http, { tokens: ctx.tokens, resourceMetadata: () => `${ctx.baseUrl()}${PROTECTED_RESOURCE_PATH}` });
      registerProtectedResourceMetadata(ctx.http, () => ctx.baseUrl(), SCOPES);
      installIdempotency(ctx.http, { store: ctx.idempotency });
      ctx.executor = new Executor({
        db: ctx.db,
        bus: ctx.bus,
        clock: ctx.clock,
        rig: ctx.rig,
        supervisor: ctx.supervisor,
        device: ctx.device,
        recipes: ctx.recipes,
        simulated: opts.simulated,
        tickMs: opts.tickMs,
        log: ctx.log.child({ component: 'executor' }),
        mandateKeys: () => ctx.principalKeys.list(),
      });
      const recovered = await ctx.executor.open();
      if (recovered > 0) ctx.log.warn({ recovered }, 'stopped executions left active by the previous process');
      registerCoreRoutes(ctx, now);
      if (ctx.rig.sim) registerSimRoutes(ctx);
    },
    async ready(ctx: AppContext) {
      await ctx.supervisor.start();
    },
    async stop(ctx: AppContext) {
      ctx.rig.allHeatOff();
      await ctx.executor?.close();
      await ctx.supervisor.stop();
      // Heat is off: a clean stop, whatever started it (a signal, a failed start): nothing to latch next time.
      heat?.clear();
    },
  };
}
