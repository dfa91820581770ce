/**
 * Safety timings on the running app (the `hearth start` composition, simulated rig, real time, the
 * supervisor sampling on its own 250 ms interval):
 *  - trip latency, from the sample that crosses the oil limit (the reading returned by the driver) to the
 *    fryer's output switched off, p50/p99: alone, then under ~1,000 HTTP requests/s against the app (a
 *    loopback load loop in a worker thread, bounded in count and time);
 *  - stall → outputs off: the main thread blocked, the watchdog worker cuts (target < 300 ms);
 *  - supervisor samples per second on the app's rig.
 * Prints figures; never asserts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import type { HeaterOutput, TemperatureSensor } from '../drivers/types.js';
import { App } from '../runtime/app/app.js';
import { resolveConfig } from '../runtime/config/config.js';
import { hubFeature } from '../runtime/hub/feature.js';
import type { HeatRequest } from '../runtime/supervisor/types.js';
import { report, summarize } from './stats.js';

const fry: HeatRequest = { heater: 'fryer', power: 1, op: 'cw.op.deep_fry', medium: 'oil', owner: 'bench' };
const wall = () => performance.timeOrigin + performance.now();

const dir = mkdtempSync(join(tmpdir(), 'hearth-hil-bench-'));
const app = await App.create(
  { ...resolveConfig({ dataDir: dir, httpPort: '0' }), logLevel: 'silent' },
  { logger: pino({ level: 'silent' }), database: ':memory:', supervisor: { watchdogStallMs: 200 } },
);
app.use(hubFeature());
const url = await app.start();
const { supervisor: sup, rig } = app.ctx;
const sim = rig.sim;
if (!sim) throw new Error('the bench needs the simulated rig');
const token = app.ctx.tokens.create({ name: 'bench', scopes: ['read'] }).token;

// Note when a reading above the limit comes back from the driver, and when the fryer's output goes off.
const oil = rig.sensors.get('oil') as TemperatureSensor;
const read = oil.read.bind(oil);
let armed = false;
let crossAt = 0;
let offAt = 0;
let reads = 0;
oil.read = async () => {
  const r = await read();
  reads++;
  if (armed && crossAt === 0 && typeof r.tempC === 'number' && r.tempC > 190) crossAt = wall();
  return r;
};
const fryer = rig.heaters.get('fryer') as HeaterOutput;
const off = fryer.off.bind(fryer);
fryer.off = () => {
  off();
  if (crossAt !== 0 && offAt === 0) offAt = wall();
};

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = wall() + ms;
  while (!cond()) {
    if (wall() > end) return false;
    await sleep(5);
  }
  return true;
}

async function tripRounds(rounds: number): Promise<{ ms: number[]; other: number }> {
  const out: number[] = [];
  let other = 0;
  for (let i = 0; i < rounds; i++) {
    sup.reset('bench');
    sim?.setTemperature('oil', 185);
    if (!(await until(() => sup.requestHeat(fry).granted, 3000))) throw new Error('heat not granted');
    crossAt = 0;
    offAt = 0;
    armed = true;
    sim?.setTemperature('oil', 195);
    await until(() => sup.status().latched, 3000);
    armed = false;
    const reason = sup.status().trip?.reason;
    if (reason === 'over_limit' && crossAt !== 0 && offAt !== 0) out.push(offAt - crossAt);
    else other++;
  }
  return { ms: out, other };
}

const LOAD = `
const { workerData, parentPort } = require('node:worker_threads');
const { url, token, rate, maxCount, maxMs } = workerData;
let sent = 0, done = 0, failed = 0, stop = false;
const started = Date.now();
parentPort.on('message', () => { stop = true; });
const tick = setInterval(() => {
  if (stop || sent >= maxCount || Date.now() - started > maxMs) {
    clearInterval(tick);
    const wait = setInterval(() => {
      if (done + failed >= sent) { clearInterval(wait); parentPort.postMessage({ sent, done, failed, ms: Date.now() - started }); }
    }, 5);
    return;
  }
  const due = Math.min(maxCount, Math.floor(((Date.now() - started) * rate) / 1000)) - sent;
  for (let i = 0; i < due && sent - done - failed < 64; i++) {
    sent++;
    fetch(url + '/svc/v1/safety', { headers: { authorization: 'Bearer ' + token } })
      .then((r) => r.arrayBuffer().then(() => (r.ok ? done++ : failed++)))
      .catch(() => failed++);
  }
}, 2);
`;

function startLoad(rate: number, maxCount: number, maxMs: number) {
  const w = new Worker(LOAD, { eval: true, workerData: { url, token, rate, maxCount, maxMs } });
  const result = new Promise<{ sent: number; done: number; failed: number; ms: number }>((resolve) => w.once('message', resolve));
  return {
    async stop() {
      w.postMessage('stop');
      const r = await result;
      await w.terminate();
      return r;
    },
  };
}

const alone = await tripRounds(25);
const a = summarize(alone.ms);
console.log(
  `trip latency on the running app, crossing sample → fryer off: p50 ${a.p50.toFixed(3)} ms / p99 ${a.p99.toFixed(3)} ms (n=${a.n}${alone.other ? `, ${alone.other} other trips` : ''})`,
);

const load = startLoad(1000, 40_000, 40_000);
await sleep(500);
const loaded = await tripRounds(25);
const l = await load.stop();
const b = summarize(loaded.ms);
console.log(
  `  under HTTP load (${Math.round((l.done * 1000) / l.ms)} req/s answered, ${l.failed} failed, GET /svc/v1/safety): p50 ${b.p50.toFixed(3)} ms / p99 ${b.p99.toFixed(3)} ms (n=${b.n}${loaded.other ? `, ${loaded.other} other trips, e.g. the watchdog` : ''})`,
);

// Stall: heat on, then block the main thread; the watchdog worker must cut on its own.
const stalls: number[] = [];
for (let i = 0; i < 6; i++) {
  sup.reset('bench');
  sim.setTemperature('oil', 120);
  if (!(await until(() => sup.requestHeat(fry).granted, 3000))) throw new Error('heat not granted');
  await sleep(50);
  const began = wall();
  while (wall() - began < 600) {
    // stalled: only the watchdog can switch the fryer off
  }
  const cut = sup.watchdog?.lastOffAt() ?? 0;
  if (cut >= began) stalls.push(cut - began);
  await sleep(100);
}
report('stall → outputs off on the running app (watchdog threshold 200 ms)', stalls, 'ms', '< 300 ms');

sup.reset('bench');
const before = reads;
const t0 = performance.now();
while (performance.now() - t0 < 1000) await sup.sample();
report('supervisor samples per second on the running app', [((reads - before) * 1000) / (performance.now() - t0)], 'samples/s');

await app.stop();
rmSync(dir, { recursive: true, force: true });
