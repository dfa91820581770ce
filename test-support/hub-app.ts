/**
 * The whole hub as `hearth start` builds it (core, events with the embedded MQTT broker, webhooks, the hub's
 * sessions and MCP, the dashboard) in this process on the simulated rig with a manual clock, listening on
 * 127.0.0.1 with free ports. For tests and the hostile-input harness that need every surface at once.
 */
import pino from 'pino';
import { ManualClock } from '../drivers/clock.js';
import { App } from '../runtime/app/app.js';
import { defaultConfig, type HearthConfig } from '../runtime/config/config.js';
import { dashboardFeature } from '../runtime/dashboard/feature.js';
import { createEventFeatures, type EventFeatures } from '../runtime/events/feature.js';
import { type Hub, hubFeature } from '../runtime/hub/feature.js';
import { httpCall, type TestHub, testRecipesDir } from '../runtime/hub/test-helpers.js';

/** The hub's TestHub (runtime/hub/test-helpers.ts), so the hub's test tables run against it, plus the event transports. */
export interface FullHub extends TestHub {
  events: EventFeatures['state'];
  /** `mqtt://127.0.0.1:PORT` of the embedded broker. */
  mqttUrl: string;
  /** A new token and its id. */
  newToken(scopes: readonly string[], kind?: 'human' | 'agent', name?: string): { token: string; id: string };
}

export async function startFullHub(opts: { dataDir?: string; config?: Partial<HearthConfig> } = {}): Promise<FullHub> {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 16, 0, 0));
  const config: HearthConfig = {
    ...defaultConfig(),
    host: '127.0.0.1',
    httpPort: 0,
    logLevel: 'silent',
    simSpeed: 'manual',
    recipes: testRecipesDir(),
    // Test receivers listen on 127.0.0.1: the operator's allow-list opens loopback (refused by default).
    webhooks: { allow: ['127.0.0.1'] },
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...opts.config,
  };
  const app = await App.create(config, {
    clock,
    logger: pino({ level: 'silent' }),
    supervisor: { watchdogStallMs: 2000 },
    ...(opts.dataDir ? {} : { database: ':memory:' as const }),
  });
  let hub: Hub | undefined;
  const events = createEventFeatures({ hubTools: () => hub?.tools });
  for (const f of [events.events, events.mqtt, events.webhooks]) app.use(f);
  app.use(hubFeature({ onReady: (h) => (hub = h) }));
  app.use(dashboardFeature({ hub: () => hub?.sessions }));
  const url = await app.start();
  if (!hub) throw new Error('the hub feature did not start');
  const mqttUrl = events.state.mqtt?.urls[0];
  if (!mqttUrl) throw new Error('the embedded MQTT broker did not start');
  let n = 0;
  const newToken: FullHub['newToken'] = (scopes, kind = 'human', name) => {
    const { token, info } = app.ctx.tokens.create({ scopes: [...scopes], kind, name: name ?? `${kind}-${++n}` });
    return { token, id: info.id };
  };
  const call = httpCall(url);
  return {
    app,
    url,
    clock,
    hub,
    events: events.state,
    mqttUrl,
    newToken,
    token: (scopes, kind = 'human', name) => newToken(scopes, kind, name).token,
    call,
    async presence(present) {
      const sim = app.ctx.rig.sim;
      if (!sim) throw new Error('not the simulated rig');
      sim.setPresence(present);
      await clock.advanceAsync(1000);
    },
    async runUntil(done, maxMs = 6 * 3600_000, stepMs = 60_000) {
      for (let t = 0; t < maxMs && !done(); t += stepMs) await clock.advanceAsync(stepMs);
      return done();
    },
    close: () => app.stop(),
  };
}
