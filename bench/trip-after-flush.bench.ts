/**
 * `npm run bench -- trip-after-flush`: the supervisor's over-limit trip (the reading that crosses the limit to
 * every heater off) the first time it happens after V8 ran full collections of its own during a long heat, with
 * V8 dropping the code of functions that stopped running (`HEARTH_CODE_FLUSH`, the hub's default) and keeping it,
 * side by side. Each sample runs in a fresh process (`--rounds=N` each, default 5, alternating): it sets the flags
 * as `hearth start` does, trips once (the path compiled), then holds heat on the simulated rig, sampling, while
 * garbage makes V8 collect (`--collections=N` full collections, default 4), then trips again and reports both.
 * Prints medians and the worst per setting, with the load average. Not a test.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { summarize } from './stats.js';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

async function child(): Promise<void> {
  const { flushIdleCode, keepYoungGenerationSmall } = await import('../platform/young-generation.js');
  keepYoungGenerationSmall();
  flushIdleCode(process.env);
  const { PerformanceObserver, constants } = await import('node:perf_hooks');
  const { ManualClock } = await import('../drivers/clock.js');
  const { createRig } = await import('../drivers/rig.js');
  const { EventBus } = await import('../runtime/events/bus.js');
  const { createSupervisor } = await import('../runtime/supervisor/supervisor.js');
  const { defaultSafetyLimits } = await import('../safety/limits.js');
  const clock = new ManualClock();
  const rig = await createRig({ kind: 'simulated', seed: 3 }, { clock });
  await rig.open();
  const bus = new EventBus();
  const sup = createSupervisor({ rig, bus, clock, limits: [defaultSafetyLimits()], watchdogStallMs: 60_000 });
  await sup.start();
  const sim = rig.sim;
  if (!sim) throw new Error('no simulated rig');
  const fry = { heater: 'fryer', power: 1, op: 'cw.op.deep_fry', medium: 'oil', owner: 'bench' } as const;
  let offAt = 0;
  bus.on('safety', () => {
    if (sim.snapshot().heaters.fryer === 0 && offAt === 0) offAt = performance.now();
  });
  const trip = async (): Promise<number> => {
    sup.reset('bench');
    sim.setTemperature('oil', 195);
    await sup.sample();
    if (!sup.requestHeat(fry).granted) throw new Error('heat not granted');
    sim.setTemperature('oil', 205);
    offAt = 0;
    const t0 = performance.now();
    await sup.sample();
    if (offAt === 0) throw new Error('no over-limit trip');
    return offAt - t0;
  };
  const first = await trip();
  // A long heat: samples under the limit while garbage makes V8 run full collections of its own.
  sup.reset('bench');
  sim.setTemperature('oil', 180);
  await sup.sample();
  if (!sup.requestHeat(fry).granted) throw new Error('heat not granted');
  let majors = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
  });
  obs.observe({ entryTypes: ['gc'] });
  let junk: object[] = [];
  const want = Number(process.env.TRIP_COLLECTIONS ?? 4);
  while (majors < want) {
    for (let i = 0; i < 50_000; i++) junk.push({ i, s: `x${i}` });
    if (junk.length > 600_000) junk = [];
    clock.advance(250);
    await sup.sample();
    await new Promise((r) => setImmediate(r));
  }
  obs.disconnect();
  junk = [];
  const after = await trip();
  await sup.stop();
  process.stdout.write(JSON.stringify({ first, after, majors }));
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds') ?? 5);
  const collections = arg('collections') ?? '4';
  const self = fileURLToPath(import.meta.url);
  const run = (setting: string) =>
    new Promise<{ first: number; after: number }>((resolve, reject) => {
      const p = spawn(process.execPath, ['--import', 'tsx', self], {
        env: { ...process.env, TRIP_CHILD: '1', HEARTH_CODE_FLUSH: setting, TRIP_COLLECTIONS: collections },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      p.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`))));
    });
  const load0 = loadavg()[0];
  const got: Record<string, { first: number[]; after: number[] }> = { keep: { first: [], after: [] }, idle: { first: [], after: [] } };
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 === 0 ? ['keep', 'idle'] : ['idle', 'keep']) {
      const x = await run(s);
      got[s]?.first.push(x.first);
      got[s]?.after.push(x.after);
    }
  }
  const med = (v: number[]) => summarize(v).p50;
  const worst = (v: number[]) => summarize(v).max;
  console.log(
    `over-limit trip, reading to heater off, ${rounds} processes each, ${collections} full collections of V8's own between (load average ${load0.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after)`,
  );
  for (const s of ['keep', 'idle'] as const) {
    const g = got[s];
    if (!g) continue;
    console.log(
      `  ${s === 'keep' ? 'code kept   ' : 'code flushed'}  first trip median ${med(g.first).toFixed(2)} ms (worst ${worst(g.first).toFixed(2)}); first trip after the heat median ${med(g.after).toFixed(2)} ms (worst ${worst(g.after).toFixed(2)})`,
    );
  }
}

if (process.env.TRIP_CHILD === '1') await child();
else await main();
