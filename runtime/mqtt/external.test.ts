// @slow: starts mosquitto (npm run test:fast skips this file; npm test runs it)
import mqtt, { type IPublishPacket } from 'mqtt';
import t from 'tap';
import { makeKitchen, tripEvent, until } from '../events/testing.js';
import { checkBrokerUrl } from './external.js';
import { MqttFeature } from './feature.js';
import { startMosquitto } from './mosquitto.js';

const ACL = `user hearth
topic readwrite svc/#

pattern read svc/+/safety/#
pattern read svc/+/availability/#
user panel
topic read svc/k1/#
topic write svc/k1/command/estop
`;

t.test('broker URLs are checked', async (t) => {
  t.equal(checkBrokerUrl('mqtt://127.0.0.1:1883'), undefined);
  t.match(checkBrokerUrl('http://x'), /must start with mqtt/);
  t.match(checkBrokerUrl('not a url'), /is not a URL/);
});

t.test('against a real mosquitto: same topics, QoS, retain and content type; last will; e-stop command', async (t) => {
  const broker = await startMosquitto({ users: { hearth: 'hub-secret', panel: 'panel-secret' }, acl: ACL });
  t.teardown(() => broker.stop());
  const k = makeKitchen({ kitchenId: 'k1' });
  const estops: string[] = [];
  const feature = new MqttFeature({
    bus: k.bus,
    hub: k.hub,
    tokens: k.tokens,
    host: '127.0.0.1',
    mqttPort: 0,
    mqttUrl: `mqtt://hearth:hub-secret@127.0.0.1:${broker.port}`,
    estop: (m) => estops.push(m),
  });
  await feature.start();
  t.same(feature.urls, [`mqtt://127.0.0.1:${broker.port}`], 'credentials are not shown');
  t.equal(feature.embedded, undefined, 'no embedded broker when an external one is configured');

  const panel = await mqtt.connectAsync(
    broker.url,
    { protocolVersion: 5, username: 'panel', password: 'panel-secret', reconnectPeriod: 0 },
    false,
  );
  t.teardown(() => panel.endAsync(true));
  const got: { topic: string; payload: string; packet: IPublishPacket }[] = [];
  panel.on('message', (topic, payload, packet) => got.push({ topic, payload: payload.toString(), packet }));
  await panel.subscribeAsync('svc/k1/#', { qos: 2 });
  await until(() => got.some((g) => g.topic === 'svc/k1/availability/hub'), 30_000, 'availability');
  const online = got.find((g) => g.topic === 'svc/k1/availability/hub')!;
  t.equal(JSON.parse(online.payload).type, 'svc.device.online');
  t.equal(online.packet.retain, true);

  k.bus.emit('safety', tripEvent());
  k.bus.emit('telemetry', { sensor: 'oil', svcSensor: 'oil_temp', tempC: 180, at: new Date().toISOString() });
  k.bus.emit('execution.state', { executionId: 'ex1', state: 'running', seq: 4, at: new Date().toISOString() });
  await until(() => got.length >= 4, 30_000, 'events via mosquitto');
  const safety = got.find((g) => g.topic === 'svc/k1/safety/oil-max')!;
  t.equal(safety.packet.qos, 2);
  t.equal(safety.packet.properties?.contentType, 'application/cloudevents+json');
  t.equal(got.find((g) => g.topic === 'svc/k1/telemetry/oil')?.packet.qos, 0);
  const exec = got.find((g) => g.topic === 'svc/k1/execution/ex1')!;
  t.equal(exec.packet.qos, 1);
  t.equal(JSON.parse(exec.payload).svcseq, 4, 'svcseq is the execution status seq');

  // A late subscriber gets the alarm retained by mosquitto.
  const late = await mqtt.connectAsync(
    broker.url,
    { protocolVersion: 5, username: 'panel', password: 'panel-secret', reconnectPeriod: 0 },
    false,
  );
  t.teardown(() => late.endAsync(true));
  const lateGot: IPublishPacket[] = [];
  late.on('message', (_t, _p, packet) => lateGot.push(packet));
  await late.subscribeAsync('svc/k1/safety/#', { qos: 2 });
  await until(() => lateGot.length === 1, 30_000, 'retained alarm');
  t.equal(lateGot[0]?.retain, true);

  await panel.publishAsync('svc/k1/command/estop', '{}', { qos: 1 });
  await until(() => estops.length === 1, 30_000, 'e-stop command');
  t.match(estops[0], /e-stop requested over MQTT/);

  // The hub vanishing (connection dropped, no DISCONNECT) publishes its last will: offline, retained.
  const before = got.length;
  const transport = feature.transport as unknown as { client: { stream: { destroy(): void }; end(force: boolean): void } };
  transport.client.stream.destroy();
  transport.client.end(true);
  await until(() => got.slice(before).some((g) => g.topic === 'svc/k1/availability/hub'), 30_000, 'last will');
  const offline = got.slice(before).find((g) => g.topic === 'svc/k1/availability/hub')!;
  t.equal(JSON.parse(offline.payload).type, 'svc.device.offline');
  k.db.close();
});

t.test('a wrong password fails start with the broker refusal', async (t) => {
  const broker = await startMosquitto({ users: { hearth: 'hub-secret' } });
  t.teardown(() => broker.stop());
  const k = makeKitchen();
  const feature = new MqttFeature({
    bus: k.bus,
    hub: k.hub,
    tokens: k.tokens,
    host: '127.0.0.1',
    mqttPort: 0,
    mqttUrl: broker.url,
    mqttUsername: 'hearth',
    mqttPassword: 'nope',
  });
  await t.rejects(feature.start(), /Not authorized|Bad User Name|unauthorized/i);
  k.db.close();
});

t.test('a restarted hub clears the alarm its previous run left retained on the external broker', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const run = async () => {
    const k = makeKitchen({ kitchenId: 'k1' });
    const feature = new MqttFeature({ bus: k.bus, hub: k.hub, tokens: k.tokens, host: '127.0.0.1', mqttPort: 0, mqttUrl: broker.url });
    await feature.start();
    return { k, feature };
  };
  /** The retained safety messages a fresh subscriber gets; with `expected`, waits (generously) for that many first. */
  const retainedSafety = async (expected = 0) => {
    const c = await mqtt.connectAsync(broker.url, { protocolVersion: 5, reconnectPeriod: 0 }, false);
    const got: string[] = [];
    c.on('message', (topic, payload, packet) => {
      if (packet.retain && payload.length > 0) got.push(topic);
    });
    await c.subscribeAsync('svc/k1/safety/#', { qos: 1 });
    if (expected > 0) await until(() => got.length >= expected, 30_000, 'the retained safety messages').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    await c.endAsync(true);
    return got;
  };
  const first = await run();
  first.k.bus.emit('safety', tripEvent());
  await first.feature.bridge.flush();
  await first.feature.stop();
  first.k.db.close();
  t.same(await retainedSafety(1), ['svc/k1/safety/oil-max'], 'the alarm outlives the hub');

  const second = await run();
  t.teardown(async () => {
    await second.feature.stop();
    second.k.db.close();
  });
  second.k.bus.emit('safety', { kind: 'reset', action: 'none', message: 'reset by ana', at: new Date().toISOString() });
  await second.feature.bridge.flush();
  t.same(await retainedSafety(), [], 'the reset cleared it');
});
