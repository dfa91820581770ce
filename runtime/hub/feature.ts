/**
 * The hub as a feature of the `hearth start` process (after the core feature): its tables, the session service
 * following the executor, the REST routes under `/svc/v1`, pairing, the e-stop and safety routes, the hub MCP
 * server and the agent card. `app.use(hubFeature())` adds it.
 */

import { sharedRevocations } from '../../platform/http/revocation.js';
import type { AdviceContext } from '../../services/advice/index.js';
import { recipeOf } from '../../services/index/catalog.js';
import { EMPTY_MARKET, loadMarketDir, type Market, MarketDocumentError } from '../../services/market/index.js';
import type { PlanningContext } from '../../services/planning/context.js';
import { modeRefusal } from '../../services/planning/policy.js';
import { menuRecipe } from '../../services/relief/rules.js';
import { startA2a } from '../a2a/mount.js';
import type { AppContext, Feature } from '../app/context.js';
import { ConfigError } from '../config/config.js';
import { mountHubGraphql } from '../graphql/mount.js';
import { mountHubMcp } from '../mcp/mount.js';
import type { HubMcpDeps } from '../mcp/tools.js';
import { registerPairingRoutes } from '../pairing/routes.js';
import { PairingStore, pairingKeyMigration, pairingMigration } from '../pairing/store.js';
import { registerAgentCard } from './agent-card.js';
import {
  HandoffService,
  LeaseService,
  leasesMigration,
  registerHandoffRoutes,
  registerLeaseRoutes,
  registerTeamRoutes,
  TeamService,
  teamMigration,
} from './coordination/index.js';
import { checkMandate, HouseholdStore, KitchenService, registerKitchenRoutes, registerPrincipalKeyRoutes } from './kitchen/index.js';
import { MarketService, marketMigration, registerMarketRoutes } from './market/index.js';
import { NotifyService, registerNotifyRoutes } from './notify/index.js';
import { adviceMigration, cachedHubCatalog, registerAdviceRoutes, registerPlanningRoutes, SqliteAdviceStore } from './planning/index.js';
import { ReliefService, registerReliefRoutes, reliefMigration } from './relief/index.js';
import { registerSafetyRoutes, type SafetyDeps } from './safety/index.js';
import { registerSessionRoutes, SessionService } from './sessions/index.js';
import { hubMigration } from './store.js';
import { SCOPES } from './types.js';

export interface Hub {
  sessions: SessionService;
  kitchen: KitchenService;
  notifications: NotifyService;
  pairing: PairingStore;
  safety: SafetyDeps;
  household: HouseholdStore;
  planning: PlanningContext;
  /** What the hub's tools run on (MCP here; MQTT command topics through runtime/mqtt/commands.ts). */
  tools: HubMcpDeps;
  advice: AdviceContext;
  market: MarketService;
  team: TeamService;
  leases: LeaseService;
  handoffs: HandoffService;
  /** Relief needs, pledges and allocations (a coordinator hub; else every call answers not-coordinator). */
  relief: ReliefService;
}

export function hubFeature(opts: { onReady?: (hub: Hub) => void; runFlow?: HubMcpDeps['runFlow'] } = {}): Feature {
  let sessions: SessionService | undefined;
  let closeMcp: (() => Promise<void>) | undefined;
  let dropGuard: (() => void) | undefined;
  let closeA2a: (() => Promise<void>) | undefined;
  let closeGraphql: (() => Promise<void>) | undefined;
  let leases: LeaseService | undefined;
  return {
    name: 'hub',
    migrations: [
      hubMigration,
      pairingMigration,
      pairingKeyMigration,
      adviceMigration,
      marketMigration,
      teamMigration,
      leasesMigration,
      reliefMigration,
    ],
    async start(ctx: AppContext) {
      const now = () => ctx.clock.now();
      // A market document that does not hold stops start-up with its path and the fault.
      let offers: Market = EMPTY_MARKET;
      if (ctx.config.market !== undefined) {
        try {
          offers = loadMarketDir(ctx.config.market);
        } catch (err) {
          if (err instanceof MarketDocumentError) throw new ConfigError(`market: ${err.message}`);
          throw err;
        }
      }
      const household = new HouseholdStore(ctx.db, now);
      const actor = ctx.device.capabilities.actor;
      const device = {
        id: typeof actor?.id === 'string' && actor.id !== '' ? actor.id : ctx.rig.id,
        kind: actor?.kind === 'appliance' ? ('appliance' as const) : ('robot' as const),
        parts: [...ctx.rig.heaters.keys()],
      };
      leases = new LeaseService({
        db: ctx.db,
        bus: ctx.bus,
        clock: ctx.clock,
        device: () => device,
        sessionState: (id) => sessions?.sessions.get(id)?.state,
      });
      sessions = new SessionService({
        leases,
        household: () => household.get(),
        db: ctx.db,
        bus: ctx.bus,
        now,
        executor: ctx.executor,
        supervisor: ctx.supervisor,
        recipes: ctx.recipes,
        device: ctx.device,
        log: ctx.log.child({ component: 'hub' }),
      });
      sessions.open();
      leases.open();
      const handoffs = new HandoffService({
        db: ctx.db,
        bus: ctx.bus,
        now,
        sessions,
        device: () => device,
        latched: () => ctx.supervisor.status().latched,
      });
      leases.onSweep((at) => handoffs.sweep(at));
      const kitchen = new KitchenService(ctx.db, now);
      const svcs = sessions;
      const isSession = (id: string) => {
        try {
          return svcs.get(id).id === id;
        } catch {
          return false;
        }
      };
      const notifications = new NotifyService({ db: ctx.db, bus: ctx.bus, now, isSession });
      // The operating mode acts in the executor's start path, so no transport starts heat in `away`.
      dropGuard = ctx.executor.addStartGuard((plan) => modeRefusal(kitchen.mode().mode, plan));
      const catalog = cachedHubCatalog(ctx.recipes, (id, hash) => ctx.executor.recalls.blocking(id, hash) !== undefined);
      const planning: PlanningContext = {
        catalog,
        actors: () => [ctx.device.capabilities as unknown as Record<string, unknown>],
        now: () => new Date(now()),
        inventory: () => kitchen.inventory().items,
        household: () => household.get(),
        mode: () => kitchen.mode().mode,
      };
      const pairing = new PairingStore(ctx.db, ctx.tokens, Date.now, SCOPES, ctx.principalKeys);
      const safety: SafetyDeps = {
        supervisor: ctx.supervisor,
        bus: ctx.bus,
        now,
        stopAll: (m) => ctx.executor.stopAll(m),
        present: () => ctx.executor.humanPresent(),
      };
      registerSessionRoutes(ctx.http, sessions);
      registerKitchenRoutes(ctx.http, kitchen, () => ctx.principalKeys.list());
      registerNotifyRoutes(ctx.http, notifications);
      registerSafetyRoutes(ctx.http, safety);
      registerPlanningRoutes(ctx.http, planning, household);
      const svc = sessions;
      const advice: AdviceContext = {
        planning,
        store: new SqliteAdviceStore(ctx.db, now),
        sessions: { create: (input, by) => ({ ...svc.create(input, by) }) },
        verifyMandate: (m, by) => checkMandate(m, ctx.principalKeys.list(), by, { scope: 'plan_meals' }),
      };
      registerAdviceRoutes(ctx.http, advice);
      const market = new MarketService({
        db: ctx.db,
        now,
        bus: ctx.bus,
        kitchen,
        market: () => offers,
        mandateKeys: () => ctx.principalKeys.list(),
      });
      registerMarketRoutes(ctx.http, market);
      const team = new TeamService({ db: ctx.db, sessions, recipes: ctx.recipes, capabilities: ctx.device.capabilities, now });
      registerTeamRoutes(ctx.http, team);
      registerLeaseRoutes(ctx.http, leases);
      registerHandoffRoutes(ctx.http, handoffs);
      const relief = new ReliefService({
        db: ctx.db,
        bus: ctx.bus,
        now,
        coordinator: ctx.config.relief?.coordinator === true,
        recipe: (id) => {
          const r = recipeOf(catalog(), id);
          return r ? menuRecipe(r.doc) : undefined;
        },
      });
      registerReliefRoutes(ctx.http, relief);
      registerPairingRoutes(ctx.http, pairing, SCOPES);
      registerPrincipalKeyRoutes(ctx.http, ctx.principalKeys);
      registerAgentCard(ctx.http, () => ctx.baseUrl());
      const deps: HubMcpDeps = {
        sessions,
        kitchen,
        notifications,
        catalog,
        planning,
        advice,
        market,
        team,
        leases,
        handoffs,
        relief,
        capabilities: ctx.device.capabilities,
        safety,
        now,
        mandateKeys: () => ctx.principalKeys.list(),
        warn: (message) => ctx.log.warn({ component: 'mcp' }, message),
        ...(opts.runFlow ? { runFlow: opts.runFlow } : {}),
      };
      closeMcp = mountHubMcp(ctx.http, deps);
      closeA2a = startA2a(ctx, deps);
      const revocations = sharedRevocations(ctx.db, (err) => ctx.log.error({ err, where: 'revocations' }, 'GraphQL transport failed'));
      const graphql = await mountHubGraphql(ctx.http, {
        ...deps,
        executor: ctx.executor,
        bus: ctx.bus,
        tokens: ctx.tokens,
        baseUrl: () => ctx.baseUrl(),
        revocations: revocations.watch,
        log: ctx.log.child({ component: 'graphql' }),
      });
      closeGraphql = async () => {
        revocations.release();
        await graphql.close();
      };
      opts.onReady?.({
        sessions,
        kitchen,
        notifications,
        pairing,
        safety,
        household,
        planning,
        tools: deps,
        advice,
        market,
        team,
        leases,
        handoffs,
        relief,
      });
    },
    async stop() {
      sessions?.close();
      leases?.close();
      dropGuard?.();
      await closeMcp?.();
      await closeA2a?.();
      await closeGraphql?.();
    },
  };
}
