/**
 * Maker integration figures: how long a press of the dashboard's e-stop (HTTP, no token, from loopback) and of
 * Home Assistant's e-stop button (MQTT through the embedded broker) take until the supervisor has latched the stop
 * and every heater is off; and how much the embedded Node-RED adds to start-up.
 */
import mqtt from 'mqtt';
import { startDashboardApp } from '../runtime/dashboard/test-app.js';
import { flowsFeature } from '../runtime/flows/feature.js';
import { homeAssistantFeature } from '../runtime/homeassistant/feature.js';
import { testBusFeature } from '../runtime/homeassistant/test-bus.js';
import { report, summarize } from './stats.js';

const ROUNDS = 200;
const bus = testBusFeature('bench');
const ha = homeAssistantFeature({
  mqtt: () => {
    const m = bus.mqtt();
    return m ? { transport: m.transport, kitchenId: 'bench' } : undefined;
  },
});
const t0 = performance.now();
const d = await startDashboardApp({ extra: () => [bus, ha] });
const plainStart = performance.now() - t0;
const { supervisor, rig, bus: events } = d.app.ctx;
const latched = () =>
  new Promise<void>((resolve) => {
    const off = events.on('safety', (e) => {
      if (e.kind === 'estop' || e.kind === 'trip') {
        off();
        resolve();
      }
    });
  });
const heatOff = () => [...rig.heaters.values()].every((h) => h.power === 0);

const http: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const start = performance.now();
  const res = await fetch(`${d.url}/dashboard/v1/estop`, { method: 'POST' });
  await res.arrayBuffer();
  if (!supervisor.status().latched || !heatOff()) throw new Error('the dashboard e-stop did not cut heat');
  http.push(performance.now() - start);
  supervisor.reset('bench');
}
const h = summarize(http);
report('dashboard e-stop, request to answer (heat already off)', http, 'ms');
console.log(`  p99 ${h.p99.toFixed(2)} ms over ${h.n} presses`);

const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${bus.mqtt()?.embedded?.port}`, {
  protocolVersion: 5,
  reconnectPeriod: 0,
  username: 'ha',
  password: d.token(['read']),
});
const mq: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const done = latched();
  const start = performance.now();
  await client.publishAsync('svc/bench/command/estop', '{"reason":"bench"}', { qos: 0 });
  await done;
  if (!heatOff()) throw new Error('the Home Assistant button did not cut heat');
  mq.push(performance.now() - start);
  supervisor.reset('bench');
}
const m = summarize(mq);
report('Home Assistant e-stop button over MQTT, publish to latched stop', mq, 'ms');
console.log(`  p99 ${m.p99.toFixed(2)} ms over ${m.n} presses`);
await client.endAsync();
await d.close();

const t1 = performance.now();
const withFlows = await startDashboardApp({ extra: () => [flowsFeature()] });
const flowsStart = performance.now() - t1;
await withFlows.close();
console.log(`start-up: ${plainStart.toFixed(0)} ms without, ${flowsStart.toFixed(0)} ms with the embedded Node-RED (one start each)`);
