/**
 * The hub's event transports as features of `hearth start` (runtime/app/context.ts): `events` (journal, event
 * hub, SSE and WebSocket feeds), `mqtt` (the local bus: embedded broker or an external one) and `webhooks`
 * (subscriptions and the outbox). `eventFeatures()` returns the three, in the order they must start; they share
 * one event hub. Options come from the config (see options.ts and docs/events.md).
 */

import { readFileSync } from 'node:fs';
import { systemClock } from '../../drivers/clock.js';
import { type RevocationWatch, sharedRevocations } from '../../platform/http/revocation.js';
import type { AppContext, Feature } from '../app/context.js';
import { ConfigError } from '../config/config.js';
import { emergencyStop, stopSource } from '../hub/safety/index.js';
import type { HubMcpDeps } from '../mcp/tools.js';
import { MqttFeature } from '../mqtt/feature.js';
import { FleetBridge } from '../mqtt/fleet-bridge.js';
import { WebhooksFeature } from '../webhooks/feature.js';
import { hubOutboundGuard } from '../webhooks/guard.js';
import { webhookMigrations } from '../webhooks/store.js';
import { EventHub } from './hub.js';
import { EventJournal, journalMigration } from './journal.js';
import { eventsOptionsOf } from './options.js';
import { installEventRoutes } from './routes.js';

export interface EventFeatures {
  events: Feature;
  mqtt: Feature;
  webhooks: Feature;
  /** The running pieces, once started (status pages, tests). */
  readonly state: { hub?: EventHub; journal?: EventJournal; mqtt?: MqttFeature; bridge?: FleetBridge; webhooks?: WebhooksFeature };
}

/** Read a PEM file named by a bridge option; a missing file stops start-up with its path. */
function pem(file: string | undefined, key: string): Buffer | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ConfigError(`${key} ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

function optionsOf(ctx: AppContext) {
  try {
    return eventsOptionsOf(ctx.config);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/** `hubTools`: the hub's services once it runs, for MQTT command requests (runtime/mqtt/commands.ts). */
export function createEventFeatures(opts: { hubTools?: () => HubMcpDeps | undefined } = {}): EventFeatures {
  const state: EventFeatures['state'] = {};
  let closeFeeds: (() => void) | undefined;
  let pruner: NodeJS.Timeout | undefined;
  // One watch of the tokens table for the three features: a revoked token's feeds, MQTT sessions and webhooks end at once.
  const held: { watch: RevocationWatch; release(): void }[] = [];
  const revocations = (ctx: AppContext): RevocationWatch => {
    const h = sharedRevocations(ctx.db, (err) => ctx.log.error({ err, where: 'revocations' }, 'event transport failed'));
    held.push(h);
    return h.watch;
  };
  const releaseAll = () => {
    for (const h of held.splice(0)) h.release();
  };
  const hubOf = (name: string): EventHub => {
    if (!state.hub) throw new Error(`the ${name} feature needs the events feature to start first`);
    return state.hub;
  };

  const events: Feature = {
    name: 'events',
    migrations: [journalMigration],
    async start(ctx: AppContext) {
      const o = optionsOf(ctx);
      state.journal = new EventJournal(ctx.db, Date.now, undefined, {
        onError: (err) => ctx.log.error({ err, where: 'journal' }, 'event transport failed'),
      });
      state.hub = new EventHub({
        bus: ctx.bus,
        journal: state.journal,
        kitchenId: o.kitchenId,
        onError: (err, where) => ctx.log.error({ err, where }, 'event transport failed'),
        // `time` is the wall clock; a simulated device clock's time of the event goes in `simtime`.
        simulated: ctx.clock !== systemClock,
      });
      state.hub.start();
      const feeds = await installEventRoutes(ctx.http, { hub: state.hub, journal: state.journal, revocations: revocations(ctx) });
      closeFeeds = feeds.close;
      const journal = state.journal;
      pruner = setInterval(() => journal.prune(), 60_000);
      pruner.unref();
    },
    stop(ctx: AppContext) {
      if (pruner) clearInterval(pruner);
      closeFeeds?.();
      releaseAll();
      state.hub?.stop();
      // Telemetry rows still queued for the journal go to the store before it closes.
      try {
        state.journal?.flush();
      } catch (err) {
        ctx.log.error({ err, where: 'journal' }, 'event transport failed');
      }
    },
  };

  const mqtt: Feature = {
    name: 'mqtt',
    async start(ctx: AppContext) {
      const o = optionsOf(ctx);
      const log = ctx.log.child({ component: 'mqtt' });
      // The hub's e-stop service (runtime/hub/safety/safety-routes.ts), for stops that come over MQTT or the fleet bridge.
      const safety = {
        supervisor: ctx.supervisor,
        bus: ctx.bus,
        now: () => ctx.clock.now(),
        stopAll: (m: string) => ctx.executor.stopAll(m),
      };
      state.mqtt = new MqttFeature({
        bus: ctx.bus,
        hub: hubOf('mqtt'),
        tokens: ctx.tokens,
        host: ctx.config.host,
        mqttPort: o.mqttPort,
        ...(o.mqttWsPort !== undefined ? { mqttWsPort: o.mqttWsPort } : {}),
        ...(o.mqttUrl !== undefined ? { mqttUrl: o.mqttUrl } : {}),
        ...(o.mqttUsername !== undefined ? { mqttUsername: o.mqttUsername } : {}),
        ...(o.mqttPassword !== undefined ? { mqttPassword: o.mqttPassword } : {}),
        ...(o.mqttGrants !== undefined ? { grants: o.mqttGrants } : {}),
        // The hub's e-stop service, as REST, MCP and GraphQL: a stop while latched cuts again and is announced
        // again, with this stopper's reason and source.
        estop: (message, origin, reason) => {
          emergencyStop(
            safety,
            reason,
            origin.principal && origin.kind
              ? stopSource({ kind: origin.kind, name: origin.principal }, 'MQTT')
              : `mqtt client ${origin.clientId}`,
            message,
          );
        },
        ...(opts.hubTools ? { commands: { deps: opts.hubTools, problemBase: () => ctx.baseUrl() } } : {}),
        revocations: revocations(ctx),
        log: (level, msg, detail) => log[level](detail ?? {}, msg),
      });
      try {
        await state.mqtt.start();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
          throw new ConfigError(`cannot listen for MQTT on ${ctx.config.host}:${o.mqttPort} (${code}): pick another --mqtt-port`);
        }
        if (o.mqttUrl) throw new ConfigError(`cannot connect to the MQTT broker ${state.mqtt.urls[0]}: ${(err as Error).message}`);
        throw err;
      }
      ctx.http.get('/svc/v1/bridge', { config: { scope: 'read' } }, async () =>
        state.bridge ? { enabled: true, ...state.bridge.status() } : { enabled: false },
      );
      if (o.bridge) {
        const b = o.bridge;
        const ca = pem(b.ca, 'bridgeCa');
        const cert = pem(b.cert, 'bridgeCert');
        const key = pem(b.key, 'bridgeKey');
        const blog = ctx.log.child({ component: 'fleet-bridge' });
        try {
          state.bridge = new FleetBridge({
            url: b.url,
            ...(b.username !== undefined ? { username: b.username } : {}),
            ...(b.password !== undefined ? { password: b.password } : {}),
            ...(b.prefix !== undefined ? { prefix: b.prefix } : {}),
            ...(ca ? { ca } : {}),
            ...(cert ? { cert } : {}),
            ...(key ? { key } : {}),
            ...(b.queue !== undefined ? { queueLimit: b.queue } : {}),
            hub: hubOf('mqtt'),
            bus: ctx.bus,
            estop: (message, origin, reason) => {
              emergencyStop(safety, reason, `fleet ${origin.principal ?? `client ${origin.clientId}`}`, message);
            },
            log: (level, msg, detail) => blog[level](detail ?? {}, msg),
          });
        } catch (err) {
          throw new ConfigError((err as Error).message);
        }
        // Never waits for the fleet broker: the kitchen runs (and queues) while it is away.
        await state.bridge.start();
      }
    },
    async stop() {
      await state.bridge?.stop();
      await state.mqtt?.stop();
    },
  };

  const webhooks: Feature = {
    name: 'webhooks',
    migrations: webhookMigrations,
    start(ctx: AppContext) {
      const log = ctx.log.child({ component: 'webhooks' });
      state.webhooks = new WebhooksFeature({
        hub: hubOf('webhooks'),
        db: ctx.db,
        http: ctx.http,
        revocations: revocations(ctx),
        guard: hubOutboundGuard(ctx.config),
        log: (level, msg, detail) => log[level](detail ?? {}, msg),
      });
      state.webhooks.start();
    },
    async stop() {
      await state.webhooks?.stop();
    },
  };

  return { events, mqtt, webhooks, state };
}

/** The three features in start order, for `app.use(...)`. */
export function eventFeatures(): Feature[] {
  const f = createEventFeatures();
  return [f.events, f.mqtt, f.webhooks];
}
