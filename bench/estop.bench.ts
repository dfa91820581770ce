/**
 * `npm run bench -- estop`: how long an e-stop takes on a started `hearth start` (built dist/, simulated rig, its
 * heat guard), by whether V8 may drop the compiled code of functions that stopped running (`HEARTH_CODE_FLUSH`,
 * platform/young-generation.ts), the two settings side by side in the same rounds (`--rounds=N`, default 3).
 *
 * Each round starts four hubs at once, two per setting:
 * - idle: `POST /svc/v1/safety/estop` right after the start (the first stop compiles its path in any setting), again
 *   at once, and again after a quiet spell (`--quiet-s=N`, default 40), when flushed code is gone;
 * - cook: a quiet spell first, then koshari cooks on the simulated rig for `--cook-s=N` (default 30) and is stopped
 *   while it heats: the stop a person actually makes.
 * The figure is request to answer: the hub cuts heat before it answers (runtime/hub/safety/safety-routes.ts), and
 * the bench reads the rig's heater afterwards to show it is off. Stops of different hubs are a second apart so they
 * do not share the CPU. Prints medians and the worst per setting and step, with the load average. Not a test.
 */
import { loadavg } from 'node:os';
import { benchDataDir, type Spawned, spawnServer, startKoshari } from './spawn-server.js';
import { summarize } from './stats.js';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Number(arg('rounds') ?? 3);
const quietMs = Number(arg('quiet-s') ?? 40) * 1000;
const cookMs = Number(arg('cook-s') ?? 30) * 1000;
const SETTINGS = ['keep', 'idle'] as const;
type Setting = (typeof SETTINGS)[number];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(setting: Setting): Promise<{ hub: Spawned; auth: Record<string, string> }> {
  const { dir, token } = benchDataDir();
  const env = { ...process.env, HEARTH_CODE_FLUSH: setting };
  const hub = await spawnServer(['start', '--http-port', '0', '--mqtt-port', '0', '--data-dir', dir], '/v1/safety-limits', env);
  return { hub, auth: { authorization: `Bearer ${token}` } };
}

/** One e-stop, request to answer, ms. */
async function stop(h: { hub: Spawned; auth: Record<string, string> }): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${h.hub.url}/svc/v1/safety/estop`, { method: 'POST', headers: h.auth });
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (res.status !== 202) throw new Error(`e-stop answered ${res.status}`);
  return ms;
}

/** Whether any heater of the simulated rig has power (its state route: the wire as the rig sees it). */
async function heating(url: string): Promise<boolean> {
  const state = (await (await fetch(`${url}/sim/v1/state`)).json()) as { heaters?: Record<string, number> };
  return Object.values(state.heaters ?? {}).some((p) => p > 0);
}

const figures = new Map<string, number[]>();
const add = (key: string, ms: number) => figures.set(key, [...(figures.get(key) ?? []), ms]);
let heatedAtStop = 0;
let heatAfterStop = 0;

async function idleScenario(setting: Setting, offset: number): Promise<void> {
  const h = await start(setting);
  try {
    await sleep(offset);
    add(`${setting} first stop after the start`, await stop(h));
    await sleep(1000);
    add(`${setting} again at once`, await stop(h));
    await sleep(quietMs);
    add(`${setting} after ${quietMs / 1000} s quiet`, await stop(h));
  } finally {
    await h.hub.kill();
  }
}

async function cookScenario(setting: Setting, offset: number): Promise<void> {
  const h = await start(setting);
  try {
    await sleep(quietMs + offset);
    await startKoshari(h.hub.url, h.auth, `bench-estop-${setting}-${offset}`);
    await sleep(cookMs);
    if (await heating(h.hub.url)) heatedAtStop++;
    add(`${setting} during a cook (after ${quietMs / 1000} s quiet, ${cookMs / 1000} s cooking)`, await stop(h));
    if (await heating(h.hub.url)) heatAfterStop++;
  } finally {
    await h.hub.kill();
  }
}

const load0 = loadavg()[0];
for (let r = 0; r < rounds; r++) {
  // Alternate which setting goes first, and keep every stop a second or more from another hub's.
  const order = r % 2 === 0 ? SETTINGS : ([...SETTINGS].reverse() as Setting[]);
  await Promise.all([idleScenario(order[0], 0), idleScenario(order[1], 2000), cookScenario(order[0], 4000), cookScenario(order[1], 6000)]);
}
const load1 = loadavg()[0];

const fmt = (n: number) => n.toFixed(1);
console.log(`e-stop request to answer, ${rounds} rounds (load average ${load0.toFixed(1)} before, ${load1.toFixed(1)} after)`);
console.log(`  ${'setting and moment'.padEnd(62)} ${'median'.padStart(7)} ${'worst'.padStart(7)}  ms`);
const steps = [...new Set([...figures.keys()].map((k) => k.replace(/^\S+ /, '')))];
for (const step of steps) {
  for (const setting of SETTINGS) {
    const v = figures.get(`${setting} ${step}`) ?? [];
    if (v.length === 0) continue;
    const { p50: median, max } = summarize(v);
    console.log(
      `  ${`${setting === 'keep' ? 'code kept ' : 'code flushed'} ${step}`.padEnd(62)} ${fmt(median).padStart(7)} ${fmt(max).padStart(7)}`,
    );
  }
}
console.log(`  cooks heating when stopped: ${heatedAtStop} of ${rounds * 2}; heating after the stop answered: ${heatAfterStop}`);
