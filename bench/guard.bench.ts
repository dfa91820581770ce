/**
 * `npm run bench -- guard [--rounds=4] [--seconds=10]`: the heat guard's own footprint (runtime/guard), the process
 * that shares the unit's memory limit with hearth. Each variant is spawned on a folder of simulated wires and
 * driven as hearth drives it (a renewal every 100 ms, a line write every second) for `seconds`; then the renewals
 * stop with the line on and the time until the wire reads off is taken (the lease is 600 ms, checked every 50 ms).
 * Printed per variant, medians of alternating rounds: resident, proportional and anonymous memory at the end
 * (/proc/PID/smaps_rollup; the file-backed rest is the node binary, shared with hearth) and anonymous memory 3 s
 * after the spawn, the end's anonymous memory as a ratio to the floor (an idle bare `node` measured in the same
 * run), CPU to start (spawn to 2 s) and per second after, and the cut. Needs a build (`npm run build`). The
 * variants: the compiled entry as `hearth start` spawns it, with V8 flags for a process that does little, and the
 * same code bundled here into one CommonJS file (no ES module loader; not what ships, see docs/performance.md).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const opt = (name: string, dflt: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt);
const ROUNDS = opt('rounds', 4);
const SECONDS = Math.max(4, opt('seconds', 10));
const esm = join(root, 'dist/runtime/guard/main.js');
const scratch = mkdtempSync(join(tmpdir(), 'hearth-guard-bench-'));
const cjs = join(scratch, 'guard.cjs');

interface Sample {
  rss: number;
  pss: number;
  anon: number;
  /** Anonymous memory 3 s after the spawn. */
  early: number;
  startCpu: number;
  cpuPerS: number;
  cutMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) * 10;
};
const smaps = (pid: number) => {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const mb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) / 1024;
  return { rss: mb('Rss'), pss: mb('Pss'), anon: mb('Anonymous') };
};

/** An idle bare node: what any Node process costs. */
async function floor(): Promise<Sample> {
  const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 100); console.log("up")'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((r) => c.stdout.once('data', r));
  await sleep(2000);
  const startCpu = cpuMs(c.pid as number);
  await sleep(1000);
  const early = smaps(c.pid as number).anon;
  await sleep((SECONDS - 3) * 1000);
  const m = smaps(c.pid as number);
  const cpuPerS = (cpuMs(c.pid as number) - startCpu) / (SECONDS - 2);
  c.kill();
  return { ...m, early, startCpu, cpuPerS, cutMs: Number.NaN };
}

async function guard(entry: string, flags: string[]): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-guard-bench-'));
  const spec = {
    socket: join(dir, 'g.sock'),
    root: dir,
    simulated: true,
    lines: [{ heater: 'fryer', line: 17, activeLow: false }],
    leaseMs: 600,
    checkMs: 50,
    connectMs: 60_000,
    watchdogFeedMs: 1000,
  };
  const c = spawn(process.execPath, [...flags, entry, '--spec', JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = c.pid as number;
  await new Promise<void>((resolve) => c.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()));
  const sock = createConnection(spec.socket);
  await new Promise((r) => sock.once('connect', r));
  sock.on('data', () => {});
  let n = 0;
  const drive = setInterval(() => sock.write(n++ % 10 === 0 ? `W fryer ${n % 20 === 1 ? 1 : 0}\n` : 'R\n'), 100);
  await sleep(2000);
  const startCpu = cpuMs(pid);
  await sleep(1000);
  const early = smaps(pid).anon;
  await sleep((SECONDS - 3) * 1000);
  const m = smaps(pid);
  const cpuPerS = (cpuMs(pid) - startCpu) / (SECONDS - 2);
  clearInterval(drive);
  sock.write('W fryer 1\n');
  const last = performance.now();
  const value = join(dir, 'gpio17', 'value');
  const level = () => readFileSync(value, 'utf8').trim();
  while (level() !== '1') await sleep(1);
  while (level() === '1') await sleep(1);
  const cutMs = performance.now() - last;
  sock.write('Q\n');
  await new Promise((r) => c.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  return { ...m, early, startCpu, cpuPerS, cutMs };
}

if (!existsSync(esm)) {
  console.log('guard: no build in dist/: run npm run build first');
  process.exit(1);
}
await esbuild.build({
  entryPoints: [esm],
  outfile: cjs,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
const variants: [string, () => Promise<Sample>][] = [
  ['floor: idle bare node', floor],
  ['guard as shipped (dist/runtime/guard/main.js)', () => guard(esm, [])],
  ['guard, --max-semi-space-size=1', () => guard(esm, ['--max-semi-space-size=1'])],
  ['guard, --jitless', () => guard(esm, ['--jitless'])],
  ['guard, --lite-mode', () => guard(esm, ['--lite-mode'])],
  ['guard bundled into one CommonJS file', () => guard(cjs, [])],
];
const before = loadavg()[0] ?? 0;
const samples = new Map<string, Sample[]>(variants.map(([name]) => [name, []]));
for (let r = 0; r < ROUNDS; r++) for (const [name, run] of variants) samples.get(name)?.push(await run());
const after = loadavg()[0] ?? 0;
rmSync(scratch, { recursive: true, force: true });

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};
const med = (name: string, k: keyof Sample) => median((samples.get(name) ?? []).map((s) => s[k]));
const floorAnon = med('floor: idle bare node', 'anon');
console.log(
  `${ROUNDS} alternating rounds of ${SECONDS} s each, medians; load average ${before.toFixed(1)} before, ${after.toFixed(1)} after`,
);
console.log(
  '| variant | RSS MB | PSS MB | anonymous MB | anon / floor | anonymous at 3 s | CPU to 2 s | CPU per s after | cut after the last renewal |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [name] of variants) {
  const cut = med(name, 'cutMs');
  console.log(
    `| ${name} | ${med(name, 'rss').toFixed(1)} | ${med(name, 'pss').toFixed(1)} | ${med(name, 'anon').toFixed(1)} | ${(med(name, 'anon') / floorAnon).toFixed(2)}× | ${med(name, 'early').toFixed(1)} | ${med(name, 'startCpu').toFixed(0)} ms | ${med(name, 'cpuPerS').toFixed(1)} ms | ${Number.isNaN(cut) ? '' : `${cut.toFixed(0)} ms`} |`,
  );
}
