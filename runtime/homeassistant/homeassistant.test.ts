/**
 * Home Assistant discovery against the embedded broker with a real MQTT client: every entity's config arrives
 * retained with the right fields, the state topics carry values, `online` brings a republish, and pressing the
 * e-stop button cuts the heat.
 */
import mqtt, { type IPublishPacket, type MqttClient } from 'mqtt';
import t, { type Test } from 'tap';
import { executeRequest, KOSHARI, newKey } from '../app/testing.js';
import { startDashboardApp } from '../dashboard/test-app.js';
import { homeAssistantFeature } from './feature.js';
import { testBusFeature } from './test-bus.js';

interface Got {
  topic: string;
  payload: string;
  retain: boolean;
  /** MQTT 5 Content Type property. */
  contentType: string | undefined;
}

async function setup(t: Test) {
  const bus = testBusFeature('k1');
  const ha = homeAssistantFeature({
    mqtt: () => {
      const m = bus.mqtt();
      return m ? { transport: m.transport, kitchenId: 'k1' } : undefined;
    },
  });
  const d = await startDashboardApp({ extra: () => [bus, ha] });
  t.teardown(() => d.close());
  const port = bus.mqtt()?.embedded?.port;
  const clients: MqttClient[] = [];
  t.teardown(async () => {
    for (const c of clients) await c.endAsync(true).catch(() => {});
  });
  const connect = async (scopes = ['read']) => {
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
      protocolVersion: 5,
      reconnectPeriod: 0,
      username: 'ha',
      password: d.token(scopes),
    });
    clients.push(c);
    const got: Got[] = [];
    c.on('message', (topic, payload, packet: IPublishPacket) =>
      got.push({ topic, payload: payload.toString(), retain: packet.retain, contentType: packet.properties?.contentType }),
    );
    return { c, got };
  };
  return { d, bus, ha, connect };
}

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface HaConfig {
  unique_id: string;
  device: { sw_version: string };
  availability: unknown;
  [field: string]: unknown;
}

const configs = (got: Got[]) => got.filter((g) => g.topic.startsWith('homeassistant/') && g.topic.endsWith('/config'));

t.test('every entity has a retained config with its fields, one device and unique ids', async (t) => {
  const { d, connect } = await setup(t);
  const { c, got } = await connect();
  await c.subscribeAsync('homeassistant/#', { qos: 1 });
  const sensors = [...d.app.ctx.rig.sensors.keys()];
  const heaters = [...d.app.ctx.rig.heaters.keys()];
  const expected = sensors.length + heaters.length + 3;
  await until(() => configs(got).length >= expected, 'discovery configs');
  const cfg = new Map(configs(got).map((g) => [g.topic, JSON.parse(g.payload) as HaConfig]));
  t.equal(cfg.size, expected);
  t.ok(
    configs(got).every((g) => g.retain),
    'every config is retained',
  );
  t.same(
    configs(got)
      .filter((g) => g.contentType !== 'application/json')
      .map((g) => g.topic),
    [],
    'every retained config carries the MQTT 5 content type application/json',
  );
  const uniques = new Set([...cfg.values()].map((v) => v.unique_id));
  t.equal(uniques.size, expected, 'unique ids');
  for (const v of cfg.values()) {
    t.same(v.device, {
      identifiers: ['hearth_k1'],
      name: `Hearth ${d.app.ctx.device.model}`,
      manufacturer: d.app.ctx.device.vendor,
      model: d.app.ctx.device.model,
      sw_version: v.device.sw_version,
    });
    t.match(v.device.sw_version, /^\d+\.\d+\.\d+/);
    t.same(v.availability, [{ topic: 'svc/k1/availability/hub', value_template: '{{ value_json.data.state }}' }]);
  }
  for (const s of sensors) {
    t.match(cfg.get(`homeassistant/sensor/hearth_k1/temp_${s}/config`), {
      device_class: 'temperature',
      unit_of_measurement: '°C',
      state_topic: `svc/k1/state/sensor_${s}`,
      value_template: '{{ value_json.tempC }}',
    });
  }
  for (const h of heaters) {
    const hc = cfg.get(`homeassistant/sensor/hearth_k1/heater_${h}_power/config`);
    t.match(hc, { unit_of_measurement: '%', state_topic: `svc/k1/state/heater_${h}` });
    t.notOk('command_topic' in (hc ?? {}), 'a heater has no command topic');
  }
  t.match(cfg.get('homeassistant/sensor/hearth_k1/execution/config'), {
    state_topic: 'svc/k1/state/execution',
    value_template: '{{ value_json.state }}',
  });
  t.match(cfg.get('homeassistant/binary_sensor/hearth_k1/safety_stop/config'), {
    device_class: 'problem',
    state_topic: 'svc/k1/state/safety',
  });
  t.match(cfg.get('homeassistant/button/hearth_k1/estop/config'), { command_topic: 'svc/k1/command/estop' });
});

t.test('state topics carry values; online brings a republish', async (t) => {
  const { d, ha, connect } = await setup(t);
  const { c, got } = await connect();
  await c.subscribeAsync(['svc/k1/state/#', 'homeassistant/#'], { qos: 1 });
  const sensor = [...d.app.ctx.rig.sensors.keys()][0] as string;
  await fetch(`${d.url}/sim/v1/temperature`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sensor, tempC: 123.4 }),
  });
  await d.clock.advanceAsync(1500);
  await until(
    () => got.some((g) => g.topic === `svc/k1/state/sensor_${sensor}` && Math.abs(JSON.parse(g.payload).tempC - 123.4) < 3),
    'a reading',
  );
  await until(() => got.some((g) => g.topic === 'svc/k1/state/safety'), 'safety state');
  t.match(JSON.parse(got.find((g) => g.topic === 'svc/k1/state/safety')?.payload ?? '{}'), {
    latched: d.app.ctx.supervisor.status().latched,
  });
  t.same(JSON.parse(got.find((g) => g.topic === 'svc/k1/state/execution')?.payload ?? '{}'), { state: 'idle' });
  t.ok(
    got.some((g) => g.topic.startsWith('svc/k1/state/heater_') && JSON.parse(g.payload).power === 0),
    'heater power published',
  );
  const state = got.filter((g) => g.topic.startsWith('svc/k1/state/'));
  t.same(
    state.filter((g) => g.contentType !== 'application/json').map((g) => g.topic),
    [],
    'every (retained) state message carries the MQTT 5 content type application/json',
  );

  const before = configs(got).length;
  const rounds = ha.bridge()?.announcements ?? 0;
  const { c: homeAssistant } = await connect();
  await homeAssistant.publishAsync('homeassistant/status', 'online', { qos: 1 });
  await until(() => configs(got).length >= before * 2, 'the republished configs');
  t.equal(ha.bridge()?.announcements, rounds + 1, 'one more round after online');
  await homeAssistant.publishAsync('homeassistant/status', 'offline', { qos: 1 });
  await new Promise((r) => setTimeout(r, 100));
  t.equal(ha.bridge()?.announcements, rounds + 1, 'offline brings nothing');
  const { c: cookOnly } = await connect(['cook']);
  await t.rejects(cookOnly.publishAsync('homeassistant/status', 'online', { qos: 1 }), 'a token without read cannot announce');
});

t.test('pressing the e-stop button cuts the heat', async (t) => {
  const { d, connect } = await setup(t);
  const { c, got } = await connect();
  await c.subscribeAsync(['homeassistant/button/#', 'svc/k1/state/#'], { qos: 1 });
  await until(() => configs(got).length === 1, 'the button config');
  const button = JSON.parse((configs(got)[0] as Got).payload) as { command_topic: string; payload_press: string };

  const cook = d.token(['read', 'cook']);
  await fetch(`${d.url}/sim/v1/presence`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"present":true}' });
  const key = newKey();
  const res = await fetch(`${d.url}/v1/executions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${cook}`, 'idempotency-key': key },
    body: JSON.stringify(executeRequest(d.app, KOSHARI, key)),
  });
  t.equal(res.status, 202);
  let heating = false;
  for (let i = 0; i < 60 && !heating; i++) {
    await d.clock.advanceAsync(2000);
    heating = [...d.app.ctx.rig.heaters.values()].some((h) => h.power > 0);
  }
  t.ok(heating, 'heating before the press');
  await until(
    () => got.some((g) => g.topic === 'svc/k1/state/execution' && JSON.parse(g.payload).state === 'running'),
    'execution running',
  );

  const { c: ha } = await connect();
  await ha.publishAsync(button.command_topic, button.payload_press, { qos: 1 });
  await until(() => d.app.ctx.supervisor.status().latched, 'the latched stop');
  t.ok(
    [...d.app.ctx.rig.heaters.values()].every((h) => h.power === 0),
    'every heater off',
  );
  await until(
    () => got.some((g) => g.topic === 'svc/k1/state/safety' && JSON.parse(g.payload).latched === true),
    'safety ON for Home Assistant',
  );
  const safety = JSON.parse(got.filter((g) => g.topic === 'svc/k1/state/safety').at(-1)?.payload ?? '{}');
  t.match(safety, { latched: true, reason: 'estop', hint: /\S/ });
});
