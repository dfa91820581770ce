/**
 * What the embedded broker holds for good: no table of packet-id Buffers from mqtt-packet (65,536 of them, ~7 MB
 * of heap on a board), and nothing left of a connection once it has closed.
 */
import { createRequire } from 'node:module';
import mqtt from 'mqtt';
import t from 'tap';
import { makeKitchen, until } from '../events/testing.js';
import { MqttFeature } from './feature.js';

// The writer's number table, as aedes' writer (mqtt-packet/writeToStream.js) fills it.
const numbers = createRequire(import.meta.url)('mqtt-packet/numbers.js') as { cache: Record<number, Buffer> };

t.test('QoS 1 deliveries do not build the packet-id table; 200 connections opened and closed leave no client', async (t) => {
  const k = makeKitchen({ kitchenId: 'k1' });
  const feature = new MqttFeature({ bus: k.bus, hub: k.hub, tokens: k.tokens, host: '127.0.0.1', mqttPort: 0 });
  await feature.start();
  t.teardown(async () => {
    await feature.stop();
    k.db.close();
  });
  const url = `mqtt://127.0.0.1:${feature.embedded?.port}`;
  const { token } = k.tokens.create({ name: 'ui', scopes: ['read'] });
  const reader = await mqtt.connectAsync(url, { protocolVersion: 5, reconnectPeriod: 0, username: 'me', password: token });
  const got: number[] = [];
  reader.on('message', (_topic, _payload, packet) => got.push(packet.messageId ?? -1));
  await reader.subscribeAsync('svc/k1/task/#', { qos: 1 });
  for (let i = 0; i < 3; i++)
    k.bus.emit('task.updated', {
      taskId: `t-${i}`,
      sessionId: 's1',
      state: 'running',
      at: new Date().toISOString(),
      task: { id: `t-${i}` },
    });
  await until(() => got.length === 3, 30_000, 'three QoS 1 task messages');
  t.ok(
    got.every((id) => id > 0),
    'each carried a packet id',
  );
  t.equal(Object.keys(numbers.cache).length, 0, 'no packet-id Buffer table was built');
  await reader.endAsync();

  for (let i = 0; i < 200; i++) {
    const c = await mqtt.connectAsync(url, {
      protocolVersion: i % 2 ? 5 : 4,
      reconnectPeriod: 0,
      clientId: `c-${i}`,
      username: 'me',
      password: token,
    });
    await c.endAsync();
  }
  await until(() => feature.embedded?.clientCount === 0, 30_000, 'every client gone');
  t.equal(feature.embedded?.clientCount, 0, 'no connection is left after 200 opened and closed');
});
