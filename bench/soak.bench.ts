/**
 * Soak: `hearth start` (simulated rig, its heat guard holding the heater wires) cooking koshari with every core
 * busy (one CPU hog process per core), status reads every 200 ms, an MQTT subscriber on the embedded broker,
 * and the simulated clock driven in real time, for 10 minutes (`--minutes=N` or HEARTH_SOAK_MINUTES for a
 * short run). Prints:
 *  - false trips: any safety stop latched during the soak (no fault is injected, so every one is false;
 *    target 0), and the share of the time a heater wire was energized (a trip can only happen with heat on);
 *  - stall → off, p50/p99 over N trials (`--trials=N`, default 5) each of a 2 s block of hearth's main loop
 *    (a SIGUSR2 handler preloaded only here busy-waits) and a 2 s SIGSTOP of the hearth process, still under
 *    the hogs: from the stall's start to the heater's wire reading off in its value file (target < 1 s).
 * Prints figures; never asserts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import mqtt from 'mqtt';
import { SIM_HEATER_LINES } from '../drivers/sim/wires.js';
import { type GuardedHub, heatOn, startGuardedHub } from '../test-support/guard-scenarios.js';
import { summarize } from './stats.js';

const flag = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const minutes = Number(flag('minutes') ?? process.env.HEARTH_SOAK_MINUTES ?? 10);
const trials = Number(flag('trials') ?? process.env.HEARTH_SOAK_TRIALS ?? 5);

/** Loaded into hearth only by this benchmark: SIGUSR2 blocks the main loop for 2 s. */
const BLOCK = `process.on('SIGUSR2', () => { const end = Date.now() + 2000; while (Date.now() < end) {} });`;
const blockPreload = ['--import', `data:text/javascript,${encodeURIComponent(BLOCK)}`];

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const anyOn = (hub: GuardedHub) => Object.keys(SIM_HEATER_LINES).some((h) => hub.energized(h));

async function hub(mqttPort?: number): Promise<GuardedHub> {
  return startGuardedHub({
    disabled: new Set(),
    nodeOptions: blockPreload,
    ...(mqttPort ? { args: ['--mqtt-port', String(mqttPort)] } : {}),
  });
}

const hogs: ChildProcess[] = cpus().map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
const stopHogs = () => {
  for (const h of hogs) h.kill('SIGKILL');
};
process.on('exit', stopHogs);
console.log(`${hogs.length} CPU hog processes (one per core); soak ${minutes} min; ${trials} trials per stall kind`);

// --- soak ---
const mqttPort = await freePort();
let h = await hub(mqttPort);
await heatOn(h);
let messages = 0;
// The paired token is the MQTT password; a restarted hub has a new one, so the subscriber is remade with it.
let sub = mqtt.connect(`mqtt://127.0.0.1:${mqttPort}`, { protocolVersion: 5, reconnectPeriod: 1000, username: 'soak', password: h.token });
const listen = () => {
  sub.on('connect', () => sub.subscribe('#'));
  sub.on('message', () => messages++);
};
listen();
const falseTrips: string[] = [];
let samples = 0;
let onSamples = 0;
let reads = 0;
const end = Date.now() + minutes * 60_000;
let lastTick = Date.now();
let nextRead = Date.now();
while (Date.now() < end) {
  await sleep(100);
  samples++;
  if (anyOn(h)) onSamples++;
  if (Date.now() < nextRead) continue;
  nextRead = Date.now() + 200;
  // Simulated time follows real time; the supervisor samples and the executor runs as they would at speed 1.
  const now = Date.now();
  const state = (await h.call('POST', '/sim/v1/clock', { advanceMs: now - lastTick })).body as {
    supervisor?: { latched: boolean; trip?: { message: string } };
    activeExecution?: string | null;
  };
  lastTick = now;
  await h.call('GET', '/v1/capabilities');
  reads += 2;
  if (state.supervisor?.latched) {
    falseTrips.push(state.supervisor.trip?.message ?? 'latched');
    console.log(`false trip ${falseTrips.length}: ${state.supervisor.trip?.message}`);
    await h.stop();
    h = await hub(mqttPort);
    sub.end(true);
    sub = mqtt.connect(`mqtt://127.0.0.1:${mqttPort}`, { protocolVersion: 5, reconnectPeriod: 1000, username: 'soak', password: h.token });
    listen();
    await heatOn(h);
    lastTick = Date.now();
  } else if (!state.activeExecution) {
    await heatOn(h);
    lastTick = Date.now();
  }
}
sub.end(true);
await h.stop();
const byGuard = falseTrips.filter((m) => m.includes('heat guard')).length;
console.log(
  `soak: ${falseTrips.length} false trips (${byGuard} by the heat guard, ${falseTrips.length - byGuard} by the in-process loop watchdog or another check) in ${minutes} min (target 0); a heater wire energized ${((100 * onSamples) / Math.max(1, samples)).toFixed(0)}% of the time; ${reads} status reads, ${messages} MQTT messages heard`,
);

// --- stall trials ---
async function trial(kind: 'block' | 'sigstop'): Promise<number | undefined> {
  const t = await hub();
  try {
    const heater = await heatOn(t);
    const pid = t.child.pid as number;
    const t0 = performance.now();
    process.kill(pid, kind === 'block' ? 'SIGUSR2' : 'SIGSTOP');
    let off: number | undefined;
    while (performance.now() - t0 < 2000) {
      if (!t.energized(heater)) {
        off = performance.now() - t0;
        break;
      }
      await sleep(2);
    }
    const rest = 2000 - (performance.now() - t0);
    if (rest > 0) await sleep(rest);
    if (kind === 'sigstop') process.kill(pid, 'SIGCONT');
    return off;
  } finally {
    await t.stop();
  }
}

for (const kind of ['block', 'sigstop'] as const) {
  const offs: number[] = [];
  let missed = 0;
  for (let i = 0; i < trials; i++) {
    const ms = await trial(kind);
    if (ms === undefined) missed++;
    else offs.push(ms);
  }
  const s = summarize(offs);
  const label = kind === 'block' ? '2 s main-loop block' : '2 s SIGSTOP';
  console.log(
    `${label} → heater wire off: p50 ${s.p50.toFixed(0)} ms / p99 ${s.p99.toFixed(0)} ms / max ${s.max.toFixed(0)} ms over ${s.n} trials; still on after 2 s: ${missed} (target < 1000 ms, 0 missed)`,
  );
}
stopHogs();
process.exit(0);
