/**
 * Tests only: the hub's event bus as an App feature (the event hub, its journal, the SSE/WebSocket feed and the
 * embedded broker on 127.0.0.1 port 0), with the MQTT e-stop command wired to the supervisor the way the hub's e-stop route does it.
 */
import type { Feature } from '../app/context.js';
import { EventHub } from '../events/hub.js';
import { EventJournal, journalMigration } from '../events/journal.js';
import { installEventRoutes } from '../events/routes.js';
import { emergencyStop } from '../hub/safety/safety-routes.js';
import { MqttFeature } from '../mqtt/feature.js';

export function testBusFeature(kitchenId = 'k1'): Feature & { mqtt(): MqttFeature | undefined; hub(): EventHub | undefined } {
  let mqtt: MqttFeature | undefined;
  let hub: EventHub | undefined;
  let routes: { close(): void } | undefined;
  return {
    name: 'test-bus',
    migrations: [journalMigration],
    mqtt: () => mqtt,
    hub: () => hub,
    async start(ctx) {
      const journal = new EventJournal(ctx.db, Date.now);
      hub = new EventHub({ bus: ctx.bus, journal, kitchenId });
      hub.start();
      routes = await installEventRoutes(ctx.http, { hub, journal, keepAliveMs: 1000 });
      const safety = {
        supervisor: ctx.supervisor,
        bus: ctx.bus,
        now: () => ctx.clock.now(),
        stopAll: (m: string) => ctx.executor.stopAll(m),
      };
      mqtt = new MqttFeature({
        bus: ctx.bus,
        hub,
        tokens: ctx.tokens,
        host: '127.0.0.1',
        mqttPort: 0,
        estop: (message, origin) => emergencyStop(safety, message, origin.principal ?? origin.clientId),
      });
      await mqtt.start();
    },
    async stop() {
      routes?.close();
      hub?.stop();
      await mqtt?.stop();
    },
  };
}
