/**
 * Tests only: a listening App on the simulated rig with a manual clock, the hub (sessions) and the dashboard.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ManualClock } from '../../drivers/clock.js';
import { App } from '../app/app.js';
import type { Feature } from '../app/context.js';
import { resolveConfig } from '../config/config.js';
import { type Hub, hubFeature } from '../hub/feature.js';
import { dashboardFeature } from './feature.js';

export interface DashboardTestApp {
  app: App;
  url: string;
  clock: ManualClock;
  hub: () => Hub | undefined;
  token(scopes: string[], kind?: 'human' | 'agent'): string;
  close(): Promise<void>;
}

export async function startDashboardApp(
  opts: {
    extra?: (app: App, hub: () => Hub | undefined) => Feature[];
    hub?: Omit<NonNullable<Parameters<typeof hubFeature>[0]>, 'onReady'>;
  } = {},
): Promise<DashboardTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-dash-'));
  const config = { ...resolveConfig({ dataDir, httpPort: '0' }), logLevel: 'silent' as const };
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 18, 0, 0));
  // The watchdog stays on; its stall threshold is raised for a shared, loaded test machine (as in runtime/app/testing.ts).
  const app = await App.create(config, { clock, logger: pino({ level: 'silent' }), supervisor: { watchdogStallMs: 2000 } });
  let hub: Hub | undefined;
  const getHub = () => hub;
  app.use(hubFeature({ ...opts.hub, onReady: (h) => (hub = h) }));
  app.use(dashboardFeature({ hub: () => hub?.sessions, keepAliveMs: 1000 }));
  for (const f of opts.extra?.(app, getHub) ?? []) app.use(f);
  const url = await app.start();
  return {
    app,
    url,
    clock,
    hub: getHub,
    token: (scopes, kind = 'human') => app.ctx.tokens.create({ scopes, kind }).token,
    async close() {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
