/**
 * The client of `npm run bench -- memory`: starts the hub in a process of its own (bench/memory-hub.ts, over an
 * IPC channel) and sends it the hostile mix of `npm run fuzz` from this process. Prints JSON lines on stdout:
 * `{ hubPid }` first, then the hub's memory per phase (bench/memory-hub.ts's Reading), then the harness's counts.
 * `--snapshots=DIR` also writes heap snapshots of the hub before the mix, after its first round and 30 s after it
 * (bench/heap-diff.mjs compares them). Not a test.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { runFuzz } from '../test-support/fuzz.js';
import { remoteTarget } from '../test-support/fuzz-target.js';
import type { Reading } from './memory-hub.js';

const opt = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const arg = (name: string, dflt: number) => Number(opt(name) ?? dflt);
const snapshots = opt('snapshots');
const out = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);

const root = fileURLToPath(new URL('..', import.meta.url));
/** The hub's own files outside dist/ (the rest of what it runs, npm run build compiles). */
const OWN = ['bench/memory-hub.ts', 'test-support/fuzz-target.ts', 'test-support/hub-app.ts'];

/** Newest modification time of the TypeScript sources npm run build compiles, ms. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * How the hub process runs: compiled, as users run hearth (dist/ from npm run build, and the hub's own three files
 * compiled beside it here), when dist/ is newer than the sources; else the sources through tsx, whose loader keeps
 * every module's source map and transformed text in the heap (tens of MB: not the hub's).
 */
function hubCommand(): { args: string[]; kind: string } {
  const stamp = join(root, 'dist/.built');
  const dirs = ['core', 'safety', 'schemas', 'drivers', 'platform', 'runtime', 'services'];
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(...dirs.map((d) => newestSource(join(root, d))))) {
    for (const f of OWN) {
      const js = join(root, 'dist', f.replace(/\.ts$/, '.js'));
      mkdirSync(dirname(js), { recursive: true });
      const { code } = transformSync(readFileSync(join(root, f), 'utf8'), { loader: 'ts', format: 'esm', target: 'node20' });
      writeFileSync(js, code);
    }
    return { args: [join(root, 'dist/bench/memory-hub.js')], kind: 'compiled dist/' };
  }
  return { args: ['--import', 'tsx', join(root, 'bench/memory-hub.ts')], kind: 'source via tsx (npm run build for the real figure)' };
}

const cmd = hubCommand();
// Node/V8 flags for the hub's command line (the variants of memory.bench.ts), e.g. `--hub-flags=--max-semi-space-size=1`.
const hubFlags = (opt('hub-flags') ?? '').split(' ').filter(Boolean);
const hub = spawn(process.execPath, [...hubFlags, ...cmd.args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
out({ hubPid: hub.pid, kind: cmd.kind });
const target = await remoteTarget(hub);

/** One answer of the hub to a message that is not the harness's. */
function ask<T>(msg: object, key: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: Record<string, unknown>) => {
      if (!(key in m)) return;
      hub.off('message', on);
      resolve(m[key] as T);
    };
    hub.on('message', on);
    hub.send(msg);
  });
}
const phase = async (name: string, gc = false) => void out(await ask<Reading>({ reading: name, gc }, 'reading'));
const snapshot = async (name: string) => {
  if (snapshots) await ask<string>({ snapshot: join(snapshots, `${name}.heapsnapshot`) }, 'snapshot');
};

const afterMs = arg('after-ms', 30_000);
await phase('hub started');
await snapshot('before');
const r = await runFuzz({
  seed: arg('seed', 1),
  requests: arg('requests', 15_000),
  target,
  rss: async () => (await ask<Reading>({ reading: 'rss', gc: true }, 'reading')).rss,
  inspect: async (_h, round) => {
    await phase(`after round ${round + 1}`);
    // What one more round adds, once every surface and library is warm: before → round 1 → after.
    if (round === 0) await snapshot('round1');
  },
  after: async () => {
    await phase('hostile mix over');
    hub.send({ follow: afterMs });
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    await phase(`${afterMs / 1000} s after`);
    await phase('after forced GCs', true);
    await snapshot('after');
  },
});
const bad = r.failures.length + r.stops.filter((s) => !s.heatCut).length;
out({
  done: true,
  requests: r.requests,
  failures: r.failures.length,
  stopsNotCut: bad - r.failures.length,
  stops: r.stops.length,
  failureList: r.failures,
});
hub.disconnect();
process.exit(0);
