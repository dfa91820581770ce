/**
 * The local dashboard as a feature of `hearth start`: the page at `/` and its data routes (routes.ts), fed by the
 * event bus (model.ts). Add it after the core feature (and after the hub, whose sessions it lists when given).
 */
import type { AppContext, Feature } from '../app/context.js';
import type { SafetyDeps } from '../hub/safety/index.js';
import { DashboardModel, type SessionsSource } from './model.js';
import { registerDashboardRoutes } from './routes.js';

export interface DashboardFeatureOptions {
  /** The hub's sessions and tasks, once the hub has started (optional: the list stays empty without it). */
  hub?: () => SessionsSource | undefined;
  /** Plot window in device-clock ms (default 10 minutes). */
  windowMs?: number;
  keepAliveMs?: number;
}

export function dashboardFeature(opts: DashboardFeatureOptions = {}): Feature & { model(): DashboardModel | undefined } {
  let model: DashboardModel | undefined;
  let routes: { close(): void } | undefined;
  return {
    name: 'dashboard',
    model: () => model,
    start(ctx: AppContext) {
      model = new DashboardModel(ctx, { ...(opts.windowMs ? { windowMs: opts.windowMs } : {}), ...(opts.hub ? { hub: opts.hub } : {}) });
      model.start();
      const safety: SafetyDeps = {
        supervisor: ctx.supervisor,
        bus: ctx.bus,
        now: () => ctx.clock.now(),
        stopAll: (m) => ctx.executor.stopAll(m),
      };
      routes = registerDashboardRoutes(ctx.http, { model, safety, ...(opts.keepAliveMs ? { keepAliveMs: opts.keepAliveMs } : {}) });
    },
    stop() {
      routes?.close();
      model?.stop();
    },
  };
}
