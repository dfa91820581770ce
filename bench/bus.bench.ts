/**
 * The local bus and event transports:
 * 1. safety event emitted on the bus → received by an MQTT 5 subscriber of the embedded broker in another process,
 *    p50/p99 over 1,000 events while 1,000 telemetry messages/s flow alongside (target p99 < 5 ms);
 *    the subscriber subscribes at QoS 2, the QoS of safety topics;
 * 2. broker throughput, the embedded broker (aedes) against Debian's mosquitto on this machine: the same mqtt.js
 *    publisher and subscriber, the same message count and size, QoS 0 and QoS 1, messages/s and the ratio;
 * 3. webhook deliveries per second from the outbox to a local receiver;
 * 4. hub CPU per telemetry event (CloudEvent, journal, fan-out), no transport.
 * Short by design (the machine is shared). Run: npm run bench bus (HEARTH_BENCH_ONLY=safety|cost|brokers|webhooks for one part)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import mqtt, { type MqttClient } from 'mqtt';
import { OutboundGuard } from '../platform/net/outbound.js';
import { makeKitchen, openStore } from '../runtime/events/testing.js';
import { EmbeddedBroker } from '../runtime/mqtt/broker.js';
import { MqttFeature } from '../runtime/mqtt/feature.js';
import { startMosquitto } from '../runtime/mqtt/mosquitto.js';
import type { QoS } from '../runtime/mqtt/topics.js';
import { WebhookOutbox } from '../runtime/webhooks/outbox.js';
import { WebhookStore } from '../runtime/webhooks/store.js';
import { report, summarize } from './stats.js';

const dir = mkdtempSync(join(tmpdir(), 'hearth-bus-bench-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (v: number) => v.toFixed(v >= 100 ? 0 : 2);
/** The same client settings against every broker: no Nagle on the client socket. */
function noDelay(c: MqttClient): MqttClient {
  (c.stream as Socket).setNoDelay(true);
  return c;
}

/**
 * The subscriber side of the safety-latency figure, run in its own process (`bus.bench.ts subscriber URL TOKEN`)
 * so the figure is the hub's and the broker's, not a subscriber sharing their event loop. Each safety event's
 * message carries its send time (epoch ms from performance.timeOrigin + now, comparable across processes on
 * one machine); the subscriber prints one JSON line of latencies once it has them all (or stdin closes).
 */
async function subscriber(url: string, token: string, n: number, qos: QoS): Promise<void> {
  const client = noDelay(await mqtt.connectAsync(url, { protocolVersion: 5, password: token, username: 'b', reconnectPeriod: 0 }, false));
  const latencies: number[] = [];
  let telemetry = 0;
  const finish = async () => {
    process.stdout.write(`${JSON.stringify({ latencies, telemetry })}\n`);
    await client.endAsync(true);
    process.exit(0);
  };
  client.on('message', (topic, payload) => {
    if (!topic.includes('/safety/')) {
      telemetry++;
      return;
    }
    const at = performance.timeOrigin + performance.now();
    const msg = (JSON.parse(payload.toString()) as { data: { message: string } }).data.message;
    const sentAt = Number(/^bench-\d+-(\d+(?:\.\d+)?)$/.exec(msg)?.[1]);
    if (Number.isFinite(sentAt)) latencies.push(at - sentAt);
    if (latencies.length === n) void finish();
  });
  await client.subscribeAsync('svc/k1/#', { qos });
  process.stdout.write('subscribed\n');
  process.stdin.resume();
  process.stdin.on('end', () => void finish());
}

async function safetyLatency(qos: QoS): Promise<void> {
  const k = makeKitchen({ file: join(dir, 'latency.db'), kitchenId: 'k1' });
  const feature = new MqttFeature({ bus: k.bus, hub: k.hub, tokens: k.tokens, host: '127.0.0.1', mqttPort: 0 });
  await feature.start();
  const { token } = k.tokens.create({ name: 'bench', scopes: ['read'] });
  const N = 1000;
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), 'subscriber', feature.urls[0]!, token, String(N), String(qos)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  let out = '';
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    let i = out.indexOf('\n');
    while (i >= 0) {
      lines.push(out.slice(0, i));
      out = out.slice(i + 1);
      i = out.indexOf('\n');
    }
    wake?.();
  });
  const line = async (ms: number): Promise<string | undefined> => {
    const end = performance.now() + ms;
    while (lines.length === 0 && performance.now() < end) {
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 50);
      });
    }
    return lines.shift();
  };
  if ((await line(30_000)) !== 'subscribed') throw new Error('the subscriber did not start');
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
  const cpu0 = process.cpuUsage();
  // How late the hub's event loop runs: a safety event waits at least this long when the loop is behind.
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  const start = performance.now();
  for (let i = 0; i < N; i++) {
    const message = `bench-${i}-${performance.timeOrigin + performance.now()}`;
    k.bus.emit('safety', { kind: 'limit_raise_refused', action: 'none', message, at: new Date().toISOString() });
    await sleep(3);
  }
  const result = await line(30_000).then((l) => {
    if (l) return l;
    child.stdin.end(); // not every event arrived: take what did
    return line(5_000);
  });
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  lag.disable();
  clearInterval(tel);
  const { latencies, telemetry } = JSON.parse(result ?? '{"latencies":[],"telemetry":0}') as { latencies: number[]; telemetry: number };
  const s = summarize(latencies);
  console.log(`machine load average (1 min) during the run: ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`);
  console.log(
    `safety event → MQTT subscriber (another process, subscribed at QoS ${qos}) latency: p50 ${fmt(s.p50)} ms / p99 ${fmt(s.p99)} ms / max ${fmt(s.max)} ms over ${s.n} events, ` +
      `with ${fmt(telemetry / seconds)} telemetry msgs/s alongside; hub process CPU ${fmt((cpu.user + cpu.system) / 1000 / seconds / 10)} %   (target p99 < 5 ms)`,
  );
  console.log(
    `  hub event loop delay meanwhile (1 ms resolution): p50 ${fmt(lag.percentile(50) / 1e6)} ms / p99 ${fmt(lag.percentile(99) / 1e6)} ms / max ${fmt(lag.max / 1e6)} ms`,
  );
  child.stdin.end();
  await feature.stop();
  k.db.close();
}

/** Hub CPU per telemetry event without a transport: CloudEvent, journal (batched rows), fan-out. */
async function hubCost(): Promise<void> {
  const k = makeKitchen({ file: join(dir, 'cost.db'), kitchenId: 'k1' });
  const at = new Date().toISOString();
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < 5000; i++) k.bus.emit('telemetry', { sensor: `s${i % 10}`, svcSensor: 'oil_temp', tempC: 150, at });
    k.journal.flush();
    const c = process.cpuUsage(c0);
    rounds.push((c.user + c.system) / 5000);
  }
  report('hub CPU per telemetry event (CloudEvent + journal, no transport), 5 rounds of 5,000', rounds, 'µs');
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
  // The receiver is on loopback, which only the operator's allow-list opens (platform/net/outbound.ts).
  const outbox = new WebhookOutbox({ store, concurrency: 8, guard: new OutboundGuard({ allow: ['127.0.0.1'] }) });
  const N = 2000;
  const body = JSON.stringify({ specversion: '1.0', id: 'x', type: 'svc.task.updated', data: { pad: 'x'.repeat(300) } });
  for (let i = 0; i < N; i++) outbox.enqueue({ id: `e${i}`, type: 'svc.task.updated' }, body);
  const t0 = performance.now();
  const n = await outbox.runDue();
  const rate = (n * 1000) / (performance.now() - t0);
  console.log(`webhook deliveries (signed, persisted outbox, concurrency 8) to a local receiver: ${fmt(rate)} deliveries/s over ${n}`);
  await new Promise<void>((r) => rx.close(() => r()));
}

if (process.argv[2] === 'subscriber') {
  rmSync(dir, { recursive: true, force: true });
  await subscriber(process.argv[3] as string, process.argv[4] as string, Number(process.argv[5]), Number(process.argv[6]) as QoS);
} else {
  const only = process.env.HEARTH_BENCH_ONLY; // e.g. `safety` to run one part
  try {
    if (!only || only === 'safety') await safetyLatency(2);
    if (!only || only === 'cost') await hubCost();
    if (!only || only === 'brokers') await brokers();
    if (!only || only === 'webhooks') await webhooks();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
