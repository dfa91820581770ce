import { spawn } from 'node:child_process';
import { CloudEvent } from 'cloudevents';
import mqtt, { type IPublishPacket, type MqttClient } from 'mqtt';
import t, { type Test } from 'tap';
import { waitFor } from '../../test-support/subscribers.js';
import { makeKitchen, tripEvent, until } from '../events/testing.js';
import { MqttFeature } from './feature.js';

async function setup(t: Test, extra: { estops?: string[]; sessions?: { maxQueued: number } } = {}) {
  const k = makeKitchen({ kitchenId: 'k1' });
  const logged: Record<string, unknown>[] = [];
  const feature = new MqttFeature({
    bus: k.bus,
    hub: k.hub,
    tokens: k.tokens,
    host: '127.0.0.1',
    mqttPort: 0,
    mqttWsPort: 0,
    estop: (message) => extra.estops?.push(message),
    ...(extra.sessions ? { sessions: extra.sessions } : {}),
    log: (_level, msg, detail) => logged.push({ msg, ...detail }),
  });
  await feature.start();
  const clients: MqttClient[] = [];
  const connect = async (token: string | undefined, opts: { ws?: boolean; clientId?: string; keep?: boolean } = {}) => {
    const url = opts.ws ? `ws://127.0.0.1:${feature.embedded?.wsPort}` : `mqtt://127.0.0.1:${feature.embedded?.port}`;
    const c = await mqtt.connectAsync(
      url,
      {
        protocolVersion: 5,
        reconnectPeriod: 0,
        clientId: opts.clientId ?? `c-${Math.random().toString(16).slice(2)}`,
        ...(opts.keep ? { clean: false, properties: { sessionExpiryInterval: 3600 } } : {}),
        ...(token ? { username: 'me', password: token } : {}),
      },
      false,
    );
    clients.push(c);
    return c;
  };
  t.teardown(async () => {
    for (const c of clients) await c.endAsync(true).catch(() => {});
    await feature.stop();
    k.db.close();
  });
  return { k, feature, connect, logged };
}

function collect(c: MqttClient) {
  const got: { topic: string; payload: string; packet: IPublishPacket }[] = [];
  c.on('message', (topic, payload, packet) => got.push({ topic, payload: payload.toString(), packet }));
  return got;
}

t.test('a paired token logs in; a bad or missing token is refused', async (t) => {
  const { k, connect } = await setup(t);
  const { token } = k.tokens.create({ name: 'panel', scopes: ['read'] });
  const ok = await connect(token);
  t.ok(ok.connected, 'connected with the token as password');
  await t.rejects(connect('hth_not-a-real-token'), /Bad User Name or Password|bad user name/i);
  await t.rejects(connect(undefined), /Bad User Name or Password|bad user name/i);
  k.tokens.revoke('panel');
  await t.rejects(connect(token), /Bad User Name or Password|bad user name/i, 'a revoked token no longer logs in');
});

t.test('safety events arrive QoS 2, retained, as CloudEvents with the MQTT 5 content type', async (t) => {
  const { k, connect } = await setup(t);
  const { token } = k.tokens.create({ name: 'robot', scopes: ['cook'] });
  const live = await connect(token);
  const got = collect(live);
  const granted = await live.subscribeAsync('svc/k1/safety/#', { qos: 2 });
  t.equal(granted[0]?.qos, 2, 'safety subscription granted to a token without read');
  k.bus.emit('safety', tripEvent());
  await until(() => got.length === 1, 30_000, 'safety event');
  const m = got[0]!;
  t.equal(m.topic, 'svc/k1/safety/oil-max');
  t.equal(m.packet.qos, 2);
  t.equal(m.packet.properties?.contentType, 'application/cloudevents+json');
  const ce = new CloudEvent(JSON.parse(m.payload), true); // validates the CloudEvents 1.0 attributes
  t.equal(ce.type, 'svc.safety.limit_tripped');
  t.equal((ce.data as unknown as { action: string }).action, 'heat_off_all');
  t.equal(ce.svcpriority, 'safety');

  // A client arriving later gets the alarm retained, until a reset clears it.
  const late = await connect(token);
  const lateGot = collect(late);
  await late.subscribeAsync('svc/k1/safety/#', { qos: 2 });
  await until(() => lateGot.length === 1, 30_000, 'retained alarm');
  t.equal(lateGot[0]?.packet.retain, true, 'delivered as retained');
  t.equal(JSON.parse(lateGot[0]!.payload).id, ce.id, 'same event id on every delivery');

  k.bus.emit('safety', { kind: 'reset', action: 'none', message: 'reset by ana', at: new Date().toISOString() });
  await until(() => got.some((g) => g.payload.includes('svc.safety.reset')), 30_000, 'reset event');
  await until(() => got.some((g) => g.payload === ''), 30_000, 'retained alarm cleared');
  const after = await connect(token);
  const afterGot = collect(after);
  await after.subscribeAsync('svc/k1/safety/#', { qos: 2 });
  await new Promise((r) => setTimeout(r, 150));
  t.same(afterGot, [], 'no retained alarm once cleared');
});

t.test('events emitted in the same tick all reach a live subscriber: a trip and the heat cut, an e-stop and its reset', async (t) => {
  const { k, connect } = await setup(t);
  const watcher = await connect(k.tokens.create({ name: 'panel', scopes: ['read'] }).token);
  const got = collect(watcher);
  await watcher.subscribeAsync('svc/k1/#', { qos: 2 });
  const at = new Date().toISOString();
  // A retained QoS 2 alarm, then a QoS 0 sample and a QoS 1 state at once: none may swallow the alarm.
  k.bus.emit('safety', tripEvent(at));
  k.bus.emit('heater', { heater: 'fryer', power: 0, at });
  k.bus.emit('execution.state', { executionId: 'ex-1', state: 'stopped', seq: 3, at });
  k.bus.emit('safety', { kind: 'estop', action: 'heat_off_all', message: 'e-stop from the panel', at });
  k.bus.emit('safety', { kind: 'reset', action: 'none', message: 'reset by ana', at });
  const want = ['svc.safety.limit_tripped', 'svc.device.heater', 'svc.execution.state', 'svc.safety.estop', 'svc.safety.reset'];
  const types = () => got.filter((g) => g.payload !== '').map((g) => JSON.parse(g.payload).type as string);
  await waitFor('the live subscriber never got', () => want.filter((w) => !types().includes(w)), 30_000);
  t.same(
    types()
      .filter((x) => want.includes(x))
      .sort(),
    [...want].sort(),
    'each exactly once',
  );
  await until(() => got.filter((g) => g.payload === '').length === 2, 30_000, 'both retained alarms cleared by the reset');
});

t.test('a spoofed safety publish is refused and reported as a safety event naming the client', async (t) => {
  const { k, connect } = await setup(t);
  const { token } = k.tokens.create({ name: 'intruder', scopes: ['read', 'cook', 'admin'] });
  const watcher = await connect(token);
  const seen = collect(watcher);
  await watcher.subscribeAsync('svc/k1/#', { qos: 2 });
  const spoofer = await connect(token, { clientId: 'evil-1' });
  const fake = JSON.stringify({ specversion: '1.0', id: 'x', source: 'x', type: 'svc.safety.cleared' });
  await t.rejects(spoofer.publishAsync('svc/k1/safety/kitchen', fake, { qos: 1 }), { code: 0x87 }, 'PUBACK 0x87 not authorized');
  await until(() => seen.some((s) => s.payload.includes('svc.safety.spoof_refused')), 30_000, 'spoof report');
  t.notOk(
    seen.some((s) => s.payload === fake),
    'the spoofed message reached nobody',
  );
  const report = JSON.parse(seen.find((s) => s.payload.includes('spoof_refused'))!.payload);
  t.equal(report.data.origin.clientId, 'evil-1');
  t.equal(report.data.origin.principal, 'intruder');
  t.equal(seen.find((s) => s.payload.includes('spoof_refused'))?.packet.qos, 2);
  t.ok(spoofer.connected, 'an MQTT 5 client stays connected after a refused publish');
  // Other topics are the hub's too; nothing but the listed commands is open to clients.
  await t.rejects(spoofer.publishAsync('svc/k1/task/t1', '{}', { qos: 1 }), { code: 0x87 });
});

t.test('read scope governs subscriptions; telemetry QoS 0; tasks QoS 1', async (t) => {
  const { k, connect } = await setup(t);
  const reader = await connect(k.tokens.create({ name: 'ui', scopes: ['read'] }).token);
  const cook = await connect(k.tokens.create({ name: 'bot', scopes: ['cook'] }).token);
  const r = collect(reader);
  const c = collect(cook);
  const [g1] = await reader.subscribeAsync('svc/k1/#', { qos: 2 });
  await t.rejects(cook.subscribeAsync('svc/k1/telemetry/#', { qos: 2 }), /Not authorized/, 'telemetry needs read');
  await t.rejects(cook.subscribeAsync('svc/k1/#', { qos: 2 }), /Not authorized/, 'so does a wildcard over every category');
  const [g3] = await cook.subscribeAsync('svc/+/safety/#', { qos: 2 });
  t.equal(g1?.qos, 2);
  t.equal(g3?.qos, 2);
  k.bus.emit('telemetry', { sensor: 'oil', svcSensor: 'oil_temp', tempC: 150.5, at: new Date().toISOString() });
  k.bus.emit('task.updated', { taskId: 't-9', sessionId: 's1', state: 'running', at: new Date().toISOString(), task: { id: 't-9' } });
  await until(() => r.length === 3, 30_000, 'reader messages'); // availability (retained) + 2
  const tel = r.find((m) => m.topic === 'svc/k1/telemetry/oil')!;
  const task = r.find((m) => m.topic === 'svc/k1/task/t-9')!;
  t.equal(tel.packet.qos, 0);
  t.equal(task.packet.qos, 1);
  t.equal(JSON.parse(task.payload).svcsession, 's1');
  const avail = r.find((m) => m.topic === 'svc/k1/availability/hub')!;
  t.equal(JSON.parse(avail.payload).type, 'svc.device.online');
  t.equal(avail.packet.retain, true);
  await new Promise((res) => setTimeout(res, 100));
  t.same(
    c.map((m) => m.topic),
    [],
    'the cook token received neither telemetry nor tasks',
  );
});

t.test('a kept session holds at most maxQueued messages while its client is away; the first ones are kept', async (t) => {
  const { k, feature, connect, logged } = await setup(t, { sessions: { maxQueued: 5 } });
  const { token } = k.tokens.create({ name: 'panel', scopes: ['read'] });
  const task = (i: number) =>
    k.bus.emit('task.updated', {
      taskId: `t-${i}`,
      sessionId: 's1',
      state: 'running',
      at: new Date().toISOString(),
      task: { id: `t-${i}` },
    });
  const first = await connect(token, { clientId: 'panel-1', keep: true });
  await first.subscribeAsync('svc/k1/task/#', { qos: 1 });
  await first.endAsync();
  await until(() => feature.embedded?.clientCount === 0, 5000, 'the panel to be away');
  for (let i = 1; i <= 12; i++) task(i);
  await until(() => logged.some((l) => /session queue full/.test(String(l.msg))), 5000, 'the full queue to be logged');
  t.match(
    logged.find((l) => /session queue full/.test(String(l.msg))),
    { clientId: 'panel-1', maxQueued: 5 },
  );

  // Listening before the connection: the kept messages come as soon as the session is resumed.
  const back = mqtt.connect(`mqtt://127.0.0.1:${feature.embedded?.port}`, {
    protocolVersion: 5,
    reconnectPeriod: 0,
    clientId: 'panel-1',
    clean: false,
    properties: { sessionExpiryInterval: 3600 },
    username: 'me',
    password: token,
  });
  t.teardown(() => back.endAsync(true));
  const got = collect(back);
  await until(() => back.connected, 5000, 'the panel to be back');
  // Connected again, it gets everything, however many: the cap is for a client that is away.
  for (let i = 100; i < 110; i++) task(i);
  await until(() => got.length === 15, 5000, 'the kept and the live messages');
  t.same(
    got.map((m) => m.topic).filter((x) => !/t-1\d\d$/.test(x)),

    [1, 2, 3, 4, 5].map((i) => `svc/k1/task/t-${i}`),
    'the five queued first came back, the seven after them were dropped',
  );
});

t.test('any paired client may request an e-stop; over WebSocket too', async (t) => {
  const estops: string[] = [];
  const { k, connect } = await setup(t, { estops });
  const { token } = k.tokens.create({ name: 'wall-button', scopes: ['notify'] });
  const ws = await connect(token, { ws: true });
  const res = (await ws.publishAsync('svc/k1/command/estop', '{}', { qos: 1 })) as { reasonCode?: number } | undefined;
  t.equal(res?.reasonCode ?? 0, 0);
  t.same(estops, ['e-stop requested over MQTT by wall-button']);
  const got = collect(ws);
  await ws.subscribeAsync('svc/k1/safety/#', { qos: 2 });
  k.bus.emit('safety', { kind: 'estop', action: 'heat_off_all', message: 'e-stop', at: new Date().toISOString() });
  await until(() => got.length === 1, 30_000, 'estop over ws');
  t.equal(JSON.parse(got[0]!.payload).type, 'svc.safety.estop');
  t.equal(got[0]!.topic, 'svc/k1/safety/kitchen');
});

t.test('mosquitto_sub (MQTT 5) receives a safety event from the embedded broker', async (t) => {
  const { k, feature } = await setup(t);
  const { token } = k.tokens.create({ name: 'third-party', scopes: ['read'] });
  const sub = spawn('mosquitto_sub', [
    '-V',
    'mqttv5',
    '-h',
    '127.0.0.1',
    '-p',
    String(feature.embedded?.port),
    '-u',
    'x',
    '-P',
    token,
    '-t',
    'svc/k1/safety/#',
    '-q',
    '2',
    '-C',
    '1',
    '-F',
    '%t|%q|%r|%p',
    '-W',
    '10',
  ]);
  let out = '';
  let err = '';
  sub.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  sub.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    sub.on('error', reject); // ENOENT when mosquitto-clients is missing: the test fails, it does not skip
    sub.on('close', resolve);
  });
  await until(() => (feature.embedded?.clientCount ?? 0) >= 1, 30_000, 'mosquitto_sub to connect');
  await new Promise((r) => setTimeout(r, 100));
  k.bus.emit('safety', tripEvent(new Date().toISOString(), 'fryer'));
  const code = await exited;
  t.equal(code, 0, `mosquitto_sub exited cleanly ${err}`);
  const [topic, qos, retained, payload] = out.trim().split('|');
  t.equal(topic, 'svc/k1/safety/fryer');
  t.equal(qos, '2');
  t.ok(retained === '0' || retained === '1');
  t.equal(JSON.parse(payload ?? '{}').type, 'svc.safety.limit_tripped');
});

t.test('a client whose token is revoked is disconnected by the sweep', async (t) => {
  const { k, feature, connect } = await setup(t);
  const keep = await connect(k.tokens.create({ name: 'keep', scopes: ['read'] }).token);
  const gone = await connect(k.tokens.create({ name: 'gone', scopes: ['read'] }).token);
  const closed = new Promise<void>((resolve) => gone.once('close', () => resolve()));
  t.equal(feature.embedded?.revokeStale(), 0);
  k.tokens.revoke('gone');
  t.equal(feature.embedded?.revokeStale(), 1);
  await closed;
  t.ok(keep.connected, 'other clients stay');
});
