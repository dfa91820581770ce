/**
 * The local bus and event transports:
 * 1. safety event emitted on the bus → received by an MQTT 5 subscriber of the embedded broker, p50/p99 over
 *    1,000 events while 1,000 telemetry messages/s flow alongside (target p99 < 5 ms);
 * 2. broker throughput, the embedded broker (aedes) against Debian's mosquitto on this machine: the same mqtt.js
 *    publisher and subscriber, the same message count and size, QoS 0 and QoS 1, messages/s and the ratio;
 * 3. webhook deliveries per second from the outbox to a local receiver.
 * Short by design (the machine is shared). Run: npm run bench bus
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { makeKitchen, openStore } from '../runtime/events/testing.js';
import { EmbeddedBroker } from '../runtime/mqtt/broker.js';
import { MqttFeature } from '../runtime/mqtt/feature.js';
import { startMosquitto } from '../runtime/mqtt/mosquitto.js';
import type { QoS } from '../runtime/mqtt/topics.js';
import { WebhookOutbox } from '../runtime/webhooks/outbox.js';
import { WebhookStore } from '../runtime/webhooks/store.js';
import { summarize } from './stats.js';

const dir = mkdtempSync(join(tmpdir(), 'hearth-bus-bench-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (v: number) => v.toFixed(v >= 100 ? 0 : 2);
/** The same client settings against every broker: no Nagle on the client socket. */
function noDelay(c: MqttClient): MqttClient {
  (c.stream as Socket).setNoDelay(true);
  return c;
}

async function safetyLatency(): Promise<void> {
  const k = makeKitchen({ file: join(dir, 'latency.db'), kitchenId: 'k1' });
  const feature = new MqttFeature({ bus: k.bus, hub: k.hub, tokens: k.tokens, host: '127.0.0.1', mqttPort: 0 });
  await feature.start();
  const { token } = k.tokens.create({ name: 'bench', scopes: ['read'] });
  const client = noDelay(
    await mqtt.connectAsync(feature.urls[0]!, { protocolVersion: 5, password: token, username: 'b', reconnectPeriod: 0 }, false),
  );
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  let telemetry = 0;
  client.on('message', (topic, payload) => {
    if (!topic.includes('/safety/')) {
      telemetry++;
      return;
    }
    const at = performance.now();
    const msg = (JSON.parse(payload.toString()) as { data: { message: string } }).data.message;
    const t0 = sent.get(msg);
    if (t0 !== undefined) latencies.push(at - t0);
  });
  await client.subscribeAsync('svc/k1/#', { qos: 2 });
  // 1,000 telemetry messages/s, kept on schedule: every 5 ms, as many as the elapsed time calls for.
  const telStart = performance.now();
  let emitted = 0;
  const tel = setInterval(() => {
    const due = Math.floor(performance.now() - telStart) - emitted;
    for (let i = 0; i < due; i++, emitted++) {
      k.bus.emit('telemetry', { sensor: `s${emitted % 10}`, svcSensor: 'oil_temp', tempC: 150, at: new Date().toISOString() });
    }
  }, 5);
  await sleep(500);
  const N = 1000;
  const start = performance.now();
  for (let i = 0; i < N; i++) {
    const message = `bench-${i}`;
    sent.set(message, performance.now());
    k.bus.emit('safety', { kind: 'limit_raise_refused', action: 'none', message, at: new Date().toISOString() });
    await sleep(3);
  }
  while (latencies.length < N && performance.now() - start < 30_000) await sleep(10);
  const seconds = (performance.now() - start) / 1000;
  clearInterval(tel);
  const s = summarize(latencies);
  console.log(`machine load average (1 min) during the run: ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`);
  console.log(
    `safety event → MQTT subscriber latency: p50 ${fmt(s.p50)} ms / p99 ${fmt(s.p99)} ms / max ${fmt(s.max)} ms over ${s.n} events, ` +
      `with ${fmt(telemetry / seconds)} telemetry msgs/s alongside   (target p99 < 5 ms)`,
  );
  await client.endAsync(true);
  await feature.stop();
  k.db.close();
}

/** Publish `n` messages of `size` bytes through one broker; messages/s from the first publish to the last delivery. */
async function throughput(
  url: string,
  creds: { username?: string; password?: string },
  topic: string,
  qos: QoS,
  n: number,
  size: number,
): Promise<number> {
  const opts = { protocolVersion: 5 as const, reconnectPeriod: 0, ...creds };
  const sub = noDelay(await mqtt.connectAsync(url, opts, false));
  const pub = noDelay(await mqtt.connectAsync(url, opts, false));
  await sub.subscribeAsync(topic, { qos });
  const payload = Buffer.alloc(size, 120);
  let got = 0;
  const done = new Promise<void>((resolve) => {
    sub.on('message', () => {
      if (++got === n) resolve();
    });
  });
  const t0 = performance.now();
  if (qos === 0) {
    for (let i = 0; i < n; i++) {
      pub.publish(topic, payload, { qos });
      if (i % 500 === 499) await sleep(0); // let the socket drain like a real producer
    }
  } else {
    // At most WINDOW publishes awaiting their PUBACK, as a well-behaved producer (a broker may drop beyond its queue).
    const WINDOW = 100;
    const inflight = new Set<Promise<unknown>>();
    for (let i = 0; i < n; i++) {
      const p = pub.publishAsync(topic, payload, { qos }).finally(() => inflight.delete(p));
      inflight.add(p);
      if (inflight.size >= WINDOW) await Promise.race(inflight);
    }
    await Promise.all(inflight);
  }
  await Promise.race([done, sleep(30_000)]);
  const rate = (got * 1000) / (performance.now() - t0);
  if (got < n) console.log(`  (only ${got} of ${n} messages arrived)`);
  await pub.endAsync(true);
  await sub.endAsync(true);
  return rate;
}

async function brokers(): Promise<void> {
  const k = makeKitchen({ kitchenId: 'k1' });
  const broker = new EmbeddedBroker({ kitchenId: 'k1', tokens: k.tokens, port: 0 });
  await broker.start();
  const { token } = k.tokens.create({ name: 'bench', scopes: ['read'] });
  const mosq = await startMosquitto({ noDelay: true });
  const topic = 'svc/k1/command/estop'; // a topic clients may publish on the embedded broker
  const N = 20_000;
  const SIZE = 256;
  for (const qos of [0, 1] as const) {
    const a = await throughput(broker.urls[0]!, { username: 'b', password: token }, topic, qos, N, SIZE);
    const m = await throughput(mosq.url, {}, topic, qos, N, SIZE);
    if (qos === 1) console.log('  (QoS 1: the publisher keeps at most 100 messages awaiting PUBACK)');
    console.log(
      `broker throughput QoS ${qos}, ${N} x ${SIZE} B, mqtt.js pub → sub: embedded (aedes) ${fmt(a)} msgs/s, mosquitto ${fmt(m)} msgs/s, ratio aedes/mosquitto ${(a / m).toFixed(2)}`,
    );
  }
  await mosq.stop();
  await broker.stop();
  k.db.close();
}

async function webhooks(): Promise<void> {
  const rx = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => rx.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(rx.address() as { port: number }).port}/hook`;
  const store = new WebhookStore(openStore(join(dir, 'webhooks.db')));
  store.create({ url, types: ['svc.'], secret: 'bench-secret-0123456789', owner: 'bench' });
  const outbox = new WebhookOutbox({ store, concurrency: 8 });
  const N = 2000;
  const body = JSON.stringify({ specversion: '1.0', id: 'x', type: 'svc.task.updated', data: { pad: 'x'.repeat(300) } });
  for (let i = 0; i < N; i++) outbox.enqueue({ id: `e${i}`, type: 'svc.task.updated' }, body);
  const t0 = performance.now();
  const n = await outbox.runDue();
  const rate = (n * 1000) / (performance.now() - t0);
  console.log(`webhook deliveries (signed, persisted outbox, concurrency 8) to a local receiver: ${fmt(rate)} deliveries/s over ${n}`);
  await new Promise<void>((r) => rx.close(() => r()));
}

try {
  await safetyLatency();
  await brokers();
  await webhooks();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
