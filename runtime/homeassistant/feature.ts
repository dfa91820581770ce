/**
 * Home Assistant MQTT discovery as a feature of `hearth start` (bridge.ts). It needs the hub's MQTT bus: `mqtt()`
 * returns its transport and kitchen id once the bus has started (add this feature after it). Without a bus it
 * logs that discovery is off and does nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { AppContext, Feature } from '../app/context.js';
import type { BusTransport } from '../mqtt/transport.js';
import { HomeAssistantBridge } from './bridge.js';

export interface HomeAssistantFeatureOptions {
  mqtt: () => { transport: Pick<BusTransport, 'publish' | 'onCommand'>; kitchenId: string } | undefined;
  prefix?: string;
}

/** The package version (sw_version of the device block). */
export function hearthVersion(): string {
  for (const rel of ['../../package.json', '../../../package.json']) {
    const url = new URL(rel, import.meta.url);
    if (!existsSync(url)) continue;
    try {
      const pkg = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'hearth' && pkg.version) return pkg.version;
    } catch {
      // not ours; try the next
    }
  }
  return '0.0.0';
}

export function homeAssistantFeature(opts: HomeAssistantFeatureOptions): Feature & { bridge(): HomeAssistantBridge | undefined } {
  let bridge: HomeAssistantBridge | undefined;
  return {
    name: 'homeassistant',
    bridge: () => bridge,
    start() {
      // Nothing before the bus is up: discovery goes out in ready(), once every feature (the MQTT bus) has started.
    },
    ready(ctx: AppContext) {
      const bus = opts.mqtt();
      if (!bus) {
        ctx.log.info('no MQTT bus: Home Assistant discovery is off');
        return;
      }
      bridge = new HomeAssistantBridge({
        transport: bus.transport,
        kitchenId: bus.kitchenId,
        vendor: ctx.device.vendor,
        model: ctx.device.model,
        swVersion: hearthVersion(),
        sensors: [...ctx.rig.sensors.values()].map((s) => ({ id: s.id, medium: s.medium, svcSensor: s.svcSensor })),
        heaters: [...ctx.rig.heaters.values()].map((h) => ({ id: h.id, medium: h.medium })),
        ...(opts.prefix ? { prefix: opts.prefix } : {}),
        bus: ctx.bus,
        now: () => ctx.clock.now(),
        safety: () => ctx.supervisor.status(),
        execution: (last) => {
          const id = ctx.executor.activeId ?? last;
          return (id && ctx.executor.status(id)) || null;
        },
        heaterPower: (id) => ctx.rig.heaters.get(id)?.power ?? 0,
        onError: (err) => ctx.log.warn({ err }, 'home assistant publish failed'),
      });
      bridge.start();
      ctx.log.info({ entities: ctx.rig.sensors.size + ctx.rig.heaters.size + 3 }, 'home assistant discovery published');
    },
    async stop() {
      await bridge?.stop();
    },
  };
}
