import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import pino from 'pino';
import t from 'tap';
import { ManualClock } from '../../drivers/clock.js';
import { App } from '../app/app.js';
import { resolveConfig } from '../config/config.js';
import { createEventFeatures } from './feature.js';
import { eventsOptionsOf } from './options.js';
import { until } from './testing.js';

t.test('options: defaults, validation, password from the environment', async (t) => {
  t.same(eventsOptionsOf({}, {}), { kitchenId: 'kitchen', mqttPort: 1883 });
  t.same(
    eventsOptionsOf(
      { kitchenId: 'flat-3', mqttPort: 0, mqttWsPort: 0, mqttUrl: 'mqtt://b:1883', mqttUsername: 'hub' },
      { HEARTH_MQTT_PASSWORD: 'pw' },
    ),
    {
      kitchenId: 'flat-3',
      mqttPort: 0,
      mqttWsPort: 0,
      mqttUrl: 'mqtt://b:1883',
      mqttUsername: 'hub',
      mqttPassword: 'pw',
    },
  );
  t.throws(() => eventsOptionsOf({ kitchenId: 'a/b' }, {}), /MQTT topic level/);
  t.throws(() => eventsOptionsOf({ mqttUrl: 'http://b' }, {}), /must start with mqtt/);
});

t.test('in hearth start: an e-stop over MQTT cuts heat; the safety event reaches MQTT, SSE and a webhook', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-events-'));
  const config = {
    ...resolveConfig({ dataDir, httpPort: '0', webhooksAllow: '127.0.0.1' }),
    logLevel: 'silent' as const,
    kitchenId: 'test-kitchen',
    mqttPort: 0,
    mqttWsPort: 0,
  };
  const app = await App.create(config, {
    clock: new ManualClock(Date.UTC(2026, 10, 20, 12)),
    logger: pino({ level: 'silent' }),
    supervisor: { watchdogStallMs: 2000 },
  });
  const f = createEventFeatures();
  app.use(f.events).use(f.mqtt).use(f.webhooks);
  const base = await app.start();
  t.teardown(async () => {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const hits: string[] = [];
  const rx = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      hits.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => rx.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => new Promise<void>((r) => rx.close(() => r())));

  const { token } = app.ctx.tokens.create({ name: 'panel', scopes: ['read', 'notify'] });
  const auth = { authorization: `Bearer ${token}` };
  const sub = await fetch(`${base}/svc/v1/subscriptions`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      url: `http://127.0.0.1:${(rx.address() as { port: number }).port}/`,
      types: ['svc.safety.'],
      secret: 'sixteen-chars-or-more',
    }),
  });
  t.equal(sub.status, 201);

  const sse = await fetch(`${base}/svc/v1/events?types=svc.safety.`, { headers: auth });
  t.equal(sse.status, 200);
  const sseReader = sse.body!.getReader();
  let sseText = '';
  void (async () => {
    for (;;) {
      const { value, done } = await sseReader.read();
      if (done) break;
      sseText += new TextDecoder().decode(value);
    }
  })().catch(() => {});

  const urls = f.state.mqtt!.urls;
  t.match(urls[0], /^mqtt:\/\/127\.0\.0\.1:\d+$/);
  const client = await mqtt.connectAsync(urls[0]!, { protocolVersion: 5, username: 'panel', password: token, reconnectPeriod: 0 }, false);
  t.teardown(() => client.endAsync(true));
  const got: { topic: string; payload: string }[] = [];
  client.on('message', (topic, payload) => got.push({ topic, payload: payload.toString() }));
  await client.subscribeAsync('svc/test-kitchen/safety/#', { qos: 2 });

  await client.publishAsync('svc/test-kitchen/command/estop', '{}', { qos: 1 });
  await until(() => got.length >= 1, 30_000, 'safety event on MQTT');
  t.equal(app.ctx.supervisor.status().latched, true, 'the supervisor latched a stop');
  const ce = JSON.parse(got[0]!.payload);
  t.equal(ce.type, 'svc.safety.estop');
  t.match(ce.data.message, /e-stop requested over MQTT by panel/);
  await until(() => sseText.includes(ce.id), 30_000, 'same event on SSE');
  await until(() => hits.some((h) => h.includes(ce.id)), 30_000, 'same event by webhook');
});
