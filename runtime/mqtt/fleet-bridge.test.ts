// @slow: starts mosquitto and hubs (npm run test:fast skips this file; npm test runs it)
/**
 * The fleet bridge against a real mosquitto (Debian's package): two hubs (in-process, simulated rig, manual
 * clock) bridged to one broker. A subscriber on mosquitto sees both kitchens' events under their prefixes; an
 * e-stop sent through mosquitto to one kitchen cuts that kitchen's heater (the simulated output) and not the
 * other's; commands other than the e-stop are refused; with mosquitto gone, a safety event still reaches the
 * local bus at once, and once mosquitto is back the queued events arrive, none dropped.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type IPublishPacket } from 'mqtt';
import pino from 'pino';
import t from 'tap';
import { ManualClock } from '../../drivers/clock.js';
import { App } from '../app/app.js';
import { resolveConfig } from '../config/config.js';
import { createEventFeatures, type EventFeatures } from '../events/feature.js';
import { eventsOptionsOf } from '../events/options.js';
import { until } from '../events/testing.js';
import { OutboundQueue } from './fleet-bridge.js';
import { type Mosquitto, startMosquitto } from './mosquitto.js';

t.test('the queue is bounded and gives up non-safety messages first', async (t) => {
  const q = new OutboundQueue(3);
  const m = (topic: string, safety: boolean) => ({ topic, payload: topic, qos: 1 as const, retain: false, safety });
  q.push(m('t1', false));
  q.push(m('s1', true));
  q.push(m('t2', false));
  q.push(m('s2', true)); // full: t1 goes
  t.same(
    q.peekAll().map((x) => x.topic),
    ['s1', 't2', 's2'],
  );
  q.push(m('s3', true)); // t2 goes
  q.push(m('s4', true)); // nothing but safety left: the oldest goes, and is counted
  t.same(
    q.peekAll().map((x) => x.topic),
    ['s2', 's3', 's4'],
  );
  t.equal(q.dropped, 3);
  t.equal(q.droppedSafety, 1);
});

t.test('options: a bad bridge URL is one line naming the option; the password comes from the environment', async (t) => {
  t.throws(() => resolveConfig({ bridgeUrl: 'http://fleet.example' }), /^--bridge-url must be a broker URL like mqtt:\/\/host:1883/);
  t.throws(() => resolveConfig({ bridgePrefix: 'a/#' }), /--bridge-prefix/);
  t.same(
    eventsOptionsOf({ bridgeUrl: 'mqtts://fleet.example:8883', bridgeUsername: 'k1', bridgeQueue: 50 }, { HEARTH_BRIDGE_PASSWORD: 'pw' })
      .bridge,
    { url: 'mqtts://fleet.example:8883', username: 'k1', password: 'pw', queue: 50 },
  );
});

interface Kitchen {
  app: App;
  f: EventFeatures;
  dir: string;
  base: string;
}

async function kitchen(kitchenId: string, bridgeUrl: string): Promise<Kitchen> {
  const dir = mkdtempSync(join(tmpdir(), `hearth-fleet-${kitchenId}-`));
  const config = {
    ...resolveConfig({ dataDir: dir, httpPort: '0' }),
    logLevel: 'silent' as const,
    kitchenId,
    mqttPort: 0,
    bridgeUrl,
    bridgePrefix: 'hearth',
  };
  const app = await App.create(config, {
    clock: new ManualClock(Date.UTC(2026, 10, 20, 12)),
    logger: pino({ level: 'silent' }),
    supervisor: { watchdogStallMs: 2000 },
  });
  const f = createEventFeatures();
  app.use(f.events).use(f.mqtt).use(f.webhooks);
  const base = await app.start();
  return { app, f, dir, base };
}

const fryerPower = (k: Kitchen) => k.app.ctx.rig.heaters.get('fryer')?.power ?? Number.NaN;

async function heat(k: Kitchen): Promise<void> {
  await k.app.ctx.supervisor.sample();
  const g = k.app.ctx.supervisor.requestHeat({
    heater: 'fryer',
    power: 0.6,
    op: 'cw.op.deep_fry',
    medium: 'oil',
    targetC: 170,
    owner: 'test',
  });
  if (!g.granted) throw new Error(`heat refused: ${g.reason}`);
}

t.test('two kitchens bridged to one mosquitto', async (t) => {
  const persist = mkdtempSync(join(tmpdir(), 'hearth-fleet-mosq-'));
  chmodSync(persist, 0o777); // mosquitto started as root drops to its own user
  t.teardown(() => rmSync(persist, { recursive: true, force: true }));
  let broker: Mosquitto = await startMosquitto({ persistenceDir: persist });
  t.teardown(() => broker.stop());

  // The fleet operator's subscriber: a persistent session, so messages wait for it across a broker restart.
  const ops = await mqtt.connectAsync(
    broker.url,
    { protocolVersion: 5, clientId: 'fleet-ops', clean: false, properties: { sessionExpiryInterval: 3600 }, reconnectPeriod: 200 },
    false,
  );
  t.teardown(() => ops.endAsync(true));
  const seen: { topic: string; ce: { id: string; type: string; data?: Record<string, unknown> }; packet: IPublishPacket }[] = [];
  ops.on('message', (topic, payload, packet) => {
    // The panel's refused commands go by on hearth/# too: keep the CloudEvents.
    if (payload.length > 0 && payload[0] === 0x7b && !topic.includes('/command/'))
      seen.push({ topic, ce: JSON.parse(payload.toString()), packet });
  });
  await ops.subscribeAsync('hearth/#', { qos: 2 });

  const k1 = await kitchen('k1', broker.url);
  t.teardown(async () => {
    await k1.app.stop();
    rmSync(k1.dir, { recursive: true, force: true });
  });
  const k2 = await kitchen('k2', broker.url);
  t.teardown(async () => {
    await k2.app.stop();
    rmSync(k2.dir, { recursive: true, force: true });
  });

  await until(
    () => ['k1', 'k2'].every((k) => seen.some((s) => s.topic === `hearth/${k}/availability/hub` && s.ce.type === 'svc.device.online')),
    30_000,
    'both kitchens online on the fleet broker',
  );
  await heat(k1);
  await heat(k2);
  await until(
    () => ['k1', 'k2'].every((k) => seen.some((s) => s.topic === `hearth/${k}/device/fryer`)),
    30_000,
    "both kitchens' heater events",
  );
  t.pass('a subscriber on mosquitto sees both kitchens under their prefixes');
  t.equal(fryerPower(k1), 0.6);
  t.equal(fryerPower(k2), 0.6);

  // An e-stop through the fleet broker, to k1 only.
  const panel = await mqtt.connectAsync(broker.url, { protocolVersion: 5, clientId: 'fleet-panel', reconnectPeriod: 0 }, false);
  await panel.publishAsync('hearth/k1/command/estop', JSON.stringify({ reason: 'oil smoking' }), { qos: 1 });
  await until(() => k1.app.ctx.supervisor.status().latched, 30_000, 'k1 latched');
  t.equal(fryerPower(k1), 0, 'k1: the heater output is off');
  t.equal(fryerPower(k2), 0.6, 'k2: still heating');
  t.equal(k2.app.ctx.supervisor.status().latched, false, 'k2: no stop');
  await until(
    () => seen.some((s) => s.topic === 'hearth/k1/safety/kitchen' && s.ce.type === 'svc.safety.estop'),
    30_000,
    'the estop event',
  );
  const stop = seen.find((s) => s.topic === 'hearth/k1/safety/kitchen' && s.ce.type === 'svc.safety.estop');
  t.match(stop?.ce.data, { reason: 'oil smoking', source: /^fleet / }, 'the e-stop carries its reason and the bridge as its source');

  // Nothing else comes down: not a limit change, not a confirmation, not a safety event.
  const limitsBefore = JSON.stringify(k2.app.ctx.supervisor.status());
  await panel.publishAsync('hearth/k2/command/raise_limit', JSON.stringify({ heater: 'fryer', maxC: 400 }), { qos: 1 });
  await panel.publishAsync('hearth/k2/command/confirm', JSON.stringify({ step: 'n14' }), { qos: 1 });
  await panel.publishAsync('hearth/k2/command/ha_status', 'online', { qos: 1 });
  await panel.publishAsync('hearth/k2/safety/kitchen', JSON.stringify({ type: 'svc.safety.reset' }), { qos: 1 });
  const bridge2 = () => k2.f.state.bridge?.status();
  await until(() => (bridge2()?.refusedCommands ?? 0) >= 3, 30_000, 'k2 refused the three commands');
  t.equal(fryerPower(k2), 0.6, 'k2 still heating: nothing was applied');
  t.equal(JSON.stringify(k2.app.ctx.supervisor.status()), limitsBefore, 'k2 supervisor state unchanged');
  await panel.endAsync(true);

  // The fleet broker goes away. A safety event on k2 still reaches k2's local bus at once.
  const { token } = k2.app.ctx.tokens.create({ name: 'display', scopes: ['read'] });
  const local = await mqtt.connectAsync(
    k2.f.state.mqtt?.urls[0] as string,
    { protocolVersion: 5, username: 'display', password: token, reconnectPeriod: 0 },
    false,
  );
  t.teardown(() => local.endAsync(true));
  const localSeen: { topic: string; id: string }[] = [];
  local.on('message', (topic, payload) => {
    if (payload.length > 0) localSeen.push({ topic, id: JSON.parse(payload.toString()).id });
  });
  await local.subscribeAsync('svc/k2/#', { qos: 2 });

  const port = broker.port;
  await broker.stop();
  await until(() => bridge2()?.state === 'disconnected', 30_000, 'k2 bridge notices');
  k2.app.ctx.supervisor.cutAll('estop', 'stop pressed on the k2 panel during the outage');
  t.equal(fryerPower(k2), 0, 'k2: heat off');
  await until(() => localSeen.some((s) => s.topic === 'svc/k2/safety/kitchen'), 10_000, 'the safety event on the local bus');
  const localStop = localSeen.find((s) => s.topic === 'svc/k2/safety/kitchen')?.id as string;
  t.ok((bridge2()?.queued ?? 0) >= 1, `queued while away (${bridge2()?.queued})`);
  const route = await fetch(`${k2.base}/svc/v1/bridge`, { headers: { authorization: `Bearer ${token}` } });
  t.match(await route.json(), { enabled: true, state: 'disconnected', prefix: 'hearth/k2', dropped: 0 }, 'GET /svc/v1/bridge');

  // Back on the same port, with the sessions it kept: the queued events arrive, none dropped.
  broker = await startMosquitto({ persistenceDir: persist, port });
  await until(() => seen.some((s) => s.ce.id === localStop), 60_000, 'the queued safety event on the fleet broker');
  const arrived = seen.find((s) => s.ce.id === localStop);
  t.equal(arrived?.topic, 'hearth/k2/safety/kitchen', 'same event, same id, under the kitchen prefix');
  await until(() => bridge2()?.state === 'connected' && bridge2()?.queued === 0, 30_000, 'queue drained');
  t.equal(bridge2()?.dropped, 0, 'nothing dropped within the bound');
  t.ok((bridge2()?.reconnects ?? 0) >= 1);
});
