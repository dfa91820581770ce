/**
 * Start-up of `hearth start` against a floor measured in the same run (printed figures, never assertions).
 *
 * The floor is a bare Node process that starts Fastify with one route (bench/fastify-floor.mjs). The two are
 * spawned alternately, `--rounds=N` times each (default 7), so the machine's load falls on both alike. For each:
 * spawn to the ready line, spawn to the first 200 on GET /v1/safety-limits, resident memory and CPU time
 * (user + system, from /proc) 300 ms after that 200; then the ratios against the floor. `hearth start` runs with
 * the default configuration (simulated rig) but for a temporary data directory and ports 0. Its heat guard, a
 * child process, is reported apart.
 *
 * Then the breakdown: one more start, of the build's modules unbundled (bin/hearth.mjs runs them bundled into one
 * file, scripts/build-bundle.mjs), with a module recorder preloaded (bench/module-recorder.mjs) lists what
 * the start loads, by package and by directory of our own code (and whether the deferred parts — Node-RED,
 * the MCP and A2A SDKs, GraphQL — stayed out); and a fresh process imports those groups one after another,
 * dependencies first (bench/import-costs.mjs), to show what each costs. Targets (issue 26): first 200 within
 * 2× of the floor, RSS at most 1.25× the floor's, on Node 20 and on Node 24: when the Node 24 of the test suite is
 * there (scripts/test-node24.mjs), the floor and hearth also start on it in the same rounds (bench/start-node24.ts
 * makes the tree hearth runs from there); `--no-node24` skips that. `--baseline=DIR` also starts another (built)
 * checkout's hearth in the same rounds, for a before/after; `--no-breakdown` skips the breakdown.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { distIsFresh } from '../test-support/cli.js';
import { cpuMs, rssMb, smapsMb } from './spawn-server.js';
import { node24Tree } from './start-node24.js';
import { percentile } from './stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Number(arg('rounds') ?? 7);
const PROBE = '/v1/safety-limits';

interface Started {
  readyMs: number;
  firstMs: number;
  pid: number;
  kill: () => Promise<void>;
}

/** Spawn `node ARGS`, time the line matching `ready` (which carries the URL) and the first 200 on PROBE. */
function spawnTimed(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = process.env, node = process.execPath): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(node, args, { stdio: ['ignore', 'pipe', 'pipe'], env, cwd: root });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const kill = () =>
    new Promise<void>((r) => {
      if (child.exitCode !== null || child.signalCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ready line within 60 s: ${out}${err}`));
    }, 60_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited ${code}: ${out}${err}`));
    };
    child.once('exit', onExit);
    child.stdout.on('data', async (d: Buffer) => {
      const had = ready.test(out);
      out += d.toString();
      const m = ready.exec(out);
      if (!m || had) return;
      const readyMs = performance.now() - t0;
      for (;;) {
        const res = await fetch(`${m[1]}${PROBE}`).catch(() => undefined);
        await res?.arrayBuffer();
        if (res?.status === 200) break;
        if (child.exitCode !== null) return;
        await new Promise((r) => setTimeout(r, 2));
      }
      const firstMs = performance.now() - t0;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ readyMs, firstMs, pid: child.pid as number, kill });
    });
  });
}

/** The pids of a process's children (the heat guard of `hearth start`). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

interface Figures {
  readyMs: number[];
  firstMs: number[];
  rssMb: number[];
  /** Proportional set size and anonymous memory (smaps_rollup): what a second such process costs is its anonymous share. */
  pssMb: number[];
  anonMb: number[];
  cpuMs: number[];
  childRssMb: number[];
}
const empty = (): Figures => ({ readyMs: [], firstMs: [], rssMb: [], pssMb: [], anonMb: [], cpuMs: [], childRssMb: [] });

async function measure(into: Figures, args: string[], ready: RegExp, env?: NodeJS.ProcessEnv, node?: string): Promise<void> {
  const s = await spawnTimed(args, ready, env, node);
  await new Promise((r) => setTimeout(r, 300));
  into.readyMs.push(s.readyMs);
  into.firstMs.push(s.firstMs);
  into.rssMb.push(rssMb(s.pid));
  const sm = smapsMb(s.pid);
  into.pssMb.push(sm.pss);
  into.anonMb.push(sm.anon);
  into.cpuMs.push(cpuMs(s.pid));
  into.childRssMb.push(childrenOf(s.pid).reduce((sum, p) => sum + rssMb(p), 0));
  await s.kill();
}

const hearthArgs = (dataDir: string, from = root, bin = join(from, 'bin/hearth.mjs')) => [
  bin,
  'start',
  '--http-port',
  '0',
  '--mqtt-port',
  '0',
  '--data-dir',
  dataDir,
];
const HEARTH_READY = /hearth ready (http:\/\/\S+)/;

const med = (v: number[]) =>
  percentile(
    [...v].sort((a, b) => a - b),
    50,
  );
const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1));
const range = (v: number[]) => `median ${fmt(med(v))} (min ${fmt(Math.min(...v))}, max ${fmt(Math.max(...v))})`;

/** The group a loaded module is charged to: a package, or a directory of our own code. */
function groupOf(entry: string): string | undefined {
  const path = entry.startsWith('require:') ? entry.slice('require:'.length) : entry.startsWith('file:') ? fileURLToPath(entry) : '';
  if (path === '' || path.includes('/bench/')) return undefined;
  const nm = path.indexOf('/node_modules/');
  if (nm !== -1) {
    const parts = path.slice(nm + '/node_modules/'.length).split('/');
    return (parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]) as string;
  }
  if (!path.startsWith(root)) return undefined;
  const rel = path.slice(root.length).replace(/^dist\//, '');
  if (rel.startsWith('bin/') || /^runtime\/cli\/run\.[jt]s$/.test(rel)) return undefined; // entry points run main()
  const [top, sub] = rel.split('/');
  return top === 'runtime' || top === 'services' ? `${top}/${sub}` : (top as string);
}

const DEFERRED: Record<string, RegExp> = {
  'Node-RED': /node_modules\/(@node-red|node-red)\//,
  'the MCP SDK': /node_modules\/@modelcontextprotocol\//,
  'the A2A SDK': /node_modules\/@a2a-js\//,
  'GraphQL (graphql, mercurius)': /node_modules\/(graphql|mercurius)\//,
};

async function breakdown(hearthCpu: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-start-graph-'));
  const log = join(dir, 'modules.txt');
  writeFileSync(log, '');
  const env = {
    ...process.env,
    HEARTH_MODULE_LOG: log,
    NODE_OPTIONS: `--import=${pathToFileURL(join(root, 'bench/module-recorder.mjs')).href}`,
  };
  // The build's modules unbundled (what bin/hearth.mjs runs is one bundled file, which has no modules to tell
  // apart): the same code, loaded module by module.
  const args = hearthArgs(join(dir, 'data'));
  if (distIsFresh()) args[0] = join(root, 'dist/runtime/cli/run.js');
  const s = await spawnTimed(args, HEARTH_READY, env);
  const lines = readFileSync(log, 'utf8').split('\n');
  await s.kill();
  const mine = lines.filter((l) => l.startsWith(`${s.pid} `)).map((l) => l.slice(l.indexOf(' ') + 1));
  const modules = [...new Set(mine.filter((m) => m.startsWith('file:') || m.startsWith('require:')))];
  console.log(`modules loaded by hearth start once ready: ${modules.length}`);
  for (const [what, pattern] of Object.entries(DEFERRED)) {
    console.log(`  ${what}: ${modules.filter((m) => pattern.test(m)).length} modules at start`);
  }
  const groups = new Map<string, string[]>();
  for (const m of modules) {
    const g = groupOf(m);
    if (g === undefined) continue;
    const list = groups.get(g) ?? [];
    list.push(m.startsWith('require:') ? m.slice('require:'.length) : m);
    groups.set(g, list);
  }
  // Dependencies first: a module is recorded before the modules it imports, so the group seen last goes first
  // and each group is charged mostly for itself.
  const order = [...groups.entries()].reverse().map(([name, list]) => ({ name, modules: list }));
  const file = join(dir, 'groups.json');
  writeFileSync(file, JSON.stringify(order));
  const runs: { name: string; ms: number; cpuMs: number; rssMb: number }[][] = [];
  for (let i = 0; i < 3; i++) {
    const r = await new Promise<string>((resolve, reject) => {
      const c = spawn(process.execPath, [join(root, 'bench/import-costs.mjs'), file], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      c.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      c.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`import-costs exited ${code}`))));
    });
    runs.push(JSON.parse(r));
  }
  const rows = order.map((g, i) => ({
    name: g.name,
    n: g.modules.length,
    ms: med(runs.map((r) => r[i]?.ms ?? 0)),
    cpu: med(runs.map((r) => r[i]?.cpuMs ?? 0)),
    rss: med(runs.map((r) => r[i]?.rssMb ?? 0)),
  }));
  const total = rows.reduce((a, r) => ({ ms: a.ms + r.ms, cpu: a.cpu + r.cpu, rss: a.rss + r.rss }), { ms: 0, cpu: 0, rss: 0 });
  console.log('import cost by group, unbundled (fresh process, dependencies first, median of 3): wall ms, CPU ms, RSS MB, modules');
  for (const r of rows.sort((a, b) => b.cpu - a.cpu).slice(0, 25)) {
    console.log(
      `  ${r.name.padEnd(28)} ${fmt(r.ms).padStart(6)} ${fmt(r.cpu).padStart(6)} ${fmt(r.rss).padStart(6)} ${String(r.n).padStart(5)}`,
    );
  }
  console.log(`  ${'all imports'.padEnd(28)} ${fmt(total.ms).padStart(6)} ${fmt(total.cpu).padStart(6)} ${fmt(total.rss).padStart(6)}`);
  // Bundled, with V8's code cache, the start pays far less than these imports cost one by one.
  if (!distIsFresh())
    console.log(
      `  the rest of hearth start's CPU to first 200 + 300 ms (node itself, opening the store, routes, the supervisor, listening): ${fmt(hearthCpu - total.cpu)} ms`,
    );
  rmSync(dir, { recursive: true, force: true });
}

const loadBefore = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const how = distIsFresh()
  ? 'the compiled dist/'
  : 'the sources through tsx: dist/ is missing or older than them, run `npm run build` for the real figures';
console.log(`load average before: ${loadBefore}; hearth start runs ${how}; ${rounds} rounds each, alternating`);
// `--baseline=DIR`: also start the hearth of another checkout (built), in the same rounds: a before/after.
const baselineDir = arg('baseline');
const floor = empty();
const hearth = empty();
const baseline = empty();
// `--young-default`: also hearth start with V8's default young generation (HEARTH_YOUNG_GENERATION=grow).
const youngDefault = process.argv.includes('--young-default') ? empty() : undefined;
// The same comparison on Node 24 (floor and hearth both on it), in the same rounds, when its tree is there;
// `--no-node24` skips it.
const node24 = process.argv.includes('--no-node24') ? 'skipped (--no-node24)' : await node24Tree(root);
const floor24 = empty();
const hearth24 = empty();
if (typeof node24 === 'string') console.log(`Node 24: not measured: ${node24}`);
else console.log(`Node 24: ${node24.version} (${node24.node}), hearth from ${node24.hearth} with its own code cache`);
const FLOOR_READY = /floor ready (http:\/\/\S+)/;
for (let i = 0; i < rounds; i++) {
  await measure(floor, [join(root, 'bench/fastify-floor.mjs')], FLOOR_READY);
  for (const [into, from] of baselineDir
    ? ([
        [hearth, root],
        [baseline, baselineDir],
      ] as const)
    : ([[hearth, root]] as const)) {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-start-'));
    await measure(into, hearthArgs(dataDir, from), HEARTH_READY);
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (youngDefault) {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-start-'));
    await measure(youngDefault, hearthArgs(dataDir), HEARTH_READY, { ...process.env, HEARTH_YOUNG_GENERATION: 'grow' });
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (typeof node24 !== 'string') {
    await measure(floor24, [join(root, 'bench/fastify-floor.mjs')], FLOOR_READY, process.env, node24.node);
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-start-'));
    await measure(hearth24, hearthArgs(dataDir, root, node24.hearth), HEARTH_READY, process.env, node24.node);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
const loadAfter = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const ratio = (a: number[], b: number[]) => (med(a) / med(b)).toFixed(2);
/** Each side's figures, then the ratios against the floor. */
function report(node: string, floorFig: Figures, hearthFig: Figures): void {
  for (const [name, f] of [
    [`floor (node + fastify, one route), ${node}`, floorFig],
    [`hearth start (default config, simulated rig), ${node}`, hearthFig],
  ] as const) {
    console.log(name);
    console.log(`  spawn → ready line:            ${range(f.readyMs)} ms`);
    console.log(`  spawn → first 200 on ${PROBE}: ${range(f.firstMs)} ms`);
    console.log(`  CPU time to first 200 + 300 ms: ${range(f.cpuMs)} ms`);
    console.log(`  resident memory then:           ${range(f.rssMb)} MB`);
    console.log(`  PSS then (smaps_rollup):        ${range(f.pssMb)} MB`);
    console.log(`  anonymous then (smaps_rollup):  ${range(f.anonMb)} MB`);
  }
  console.log(`  its heat guard (a child process): ${range(hearthFig.childRssMb)} MB resident`);
  console.log(
    `ratios hearth/floor on ${node} (medians): first 200 ${ratio(hearthFig.firstMs, floorFig.firstMs)}× (target ≤ 2×: ${fmt(med(hearthFig.firstMs))} ms), ready line ${ratio(hearthFig.readyMs, floorFig.readyMs)}×, CPU ${ratio(hearthFig.cpuMs, floorFig.cpuMs)}×, RSS ${ratio(hearthFig.rssMb, floorFig.rssMb)}× (target ≤ 1.25× = ${fmt(1.25 * med(floorFig.rssMb))} MB: ${fmt(med(hearthFig.rssMb))} MB), PSS ${ratio(hearthFig.pssMb, floorFig.pssMb)}×, anonymous ${ratio(hearthFig.anonMb, floorFig.anonMb)}× (${fmt(med(hearthFig.anonMb) - med(floorFig.anonMb))} MB more than the floor)`,
  );
}
report(`Node ${process.versions.node}`, floor, hearth);
if (typeof node24 !== 'string') report(`Node ${node24.version}`, floor24, hearth24);
if (youngDefault) {
  console.log("hearth start with V8's default young generation (HEARTH_YOUNG_GENERATION=grow)");
  console.log(
    `  spawn → first 200: ${range(youngDefault.firstMs)} ms; CPU ${range(youngDefault.cpuMs)} ms; RSS ${range(youngDefault.rssMb)} MB; anonymous ${range(youngDefault.anonMb)} MB`,
  );
}
if (baselineDir) {
  console.log(`baseline: hearth start of ${baselineDir}`);
  console.log(`  spawn → first 200: ${range(baseline.firstMs)} ms; CPU ${range(baseline.cpuMs)} ms; RSS ${range(baseline.rssMb)} MB`);
}
// The table of docs/performance.md: medians, hearth / floor per Node.
const sides: [string, Figures, Figures][] = [[`Node ${process.versions.node}`, floor, hearth]];
if (typeof node24 !== 'string') sides.push([`Node ${node24.version}`, floor24, hearth24]);
console.log(`| medians | ${sides.map(([n]) => `${n}: floor | hearth | ratio`).join(' | ')} |`);
for (const [row, key, unit] of [
  ['spawn → first 200', 'firstMs', 'ms'],
  ['resident (RSS)', 'rssMb', 'MB'],
  ['PSS', 'pssMb', 'MB'],
  ['anonymous', 'anonMb', 'MB'],
] as const) {
  const cells = sides.map(([, f, h]) => `${fmt(med(f[key]))} ${unit} | ${fmt(med(h[key]))} ${unit} | ${ratio(h[key], f[key])}×`);
  console.log(`| ${row} | ${cells.join(' | ')} |`);
}
console.log(`load average after: ${loadAfter}`);
if (!process.argv.includes('--no-breakdown')) await breakdown(med(hearth.cpuMs));
