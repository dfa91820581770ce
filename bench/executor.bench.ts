/**
 * Executor benchmarks (printed figures, never assertions):
 * - status reads per second over keep-alive connections (target ≥ 10,000/s);
 * - stop request to heater output off, p50/p99 over 200 stops (target p99 < 10 ms);
 * - resident memory of `hearth start` once ready (target < 80 MB);
 * - spawn of `node bin/hearth.mjs start` to its ready line (target < 1.5 s), and its CPU time;
 * the last three without flags and with `--max-semi-space-size=2` (docs/performance.md), or with the V8 flags of
 * `--flags="--lite-mode --max-semi-space-size=2"` instead.
 * Status reads also print the server's CPU time per read (from /proc), which a busy machine disturbs far less
 * than reads per second. `--only=reads,stop,start` runs a subset.
 * The process figures use the compiled CLI when dist/ is fresh (`npm run build`), else the source fallback (slower;
 * the figure says which).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executeRequest, KOSHARI, newKey, startTestApp } from '../runtime/app/testing.js';
import type { ExecuteRequest } from '../runtime/executor/types.js';
import { distIsFresh } from '../test-support/cli.js';
import { benchDataDir, startKoshari } from './spawn-server.js';
import { report, summarize } from './stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// What bin/hearth.mjs will run: the compiled CLI only when dist/ is newer than every source.
const compiled = distIsFresh();

function get(agent: Agent, port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

function spawnStart(
  dataDir: string,
  nodeFlags: string[] = [],
): Promise<{ ms: number; pid: number; url: string; kill: () => Promise<void> }> {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...nodeFlags,
      join(root, 'bin/hearth.mjs'),
      'start',
      '--http-port',
      '0',
      '--mqtt-port',
      '0',
      '--data-dir',
      dataDir,
      '--log-level',
      'warn',
      '--sim-speed',
      'manual',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ready line: ${out}`)), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /hearth ready (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        const ms = performance.now() - t0;
        resolve({
          ms,
          pid: child.pid as number,
          url: m[1] as string,
          kill: () =>
            new Promise((r) => {
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** CPU time (user + system) a process has used so far, in ms (less sensitive to a loaded machine than wall time). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime in clock ticks of 10 ms
}

async function statusReads(nodeFlags: string[] = []): Promise<void> {
  // The server runs in its own process (as in production), the client here.
  const { dir, token } = benchDataDir();
  const p = await spawnStart(dir, nodeFlags);
  const port = Number(new URL(p.url).port);
  const auth = { authorization: `Bearer ${token}` };
  const id = await startKoshari(p.url, auth, 'bench-status-key-1');
  const path = `/v1/executions/${id}`;
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const rounds: number[] = [];
  let cpuFrom = 0;
  let reads = 0;
  for (let round = 0; round < 4; round++) {
    if (round === 1) cpuFrom = cpuMs(p.pid);
    let n = 0;
    const end = performance.now() + 1500;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (performance.now() < end) {
          if ((await get(agent, port, path, auth)) !== 200) throw new Error('status read failed');
          n++;
        }
      }),
    );
    if (round > 0) {
      rounds.push(n / 1.5); // the first round warms up
      reads += n;
    }
  }
  const serverUs = ((cpuMs(p.pid) - cpuFrom) * 1000) / reads;
  agent.destroy();
  const flags = nodeFlags.length > 0 ? nodeFlags.join(' ') : 'no flags';
  report(
    `status reads over keep-alive (32 connections, server ${compiled ? 'compiled' : 'from source'}, ${flags})`,
    rounds,
    'reads/s',
    '≥ 10000/s',
  );
  // The server's CPU per read does not depend on how busy the machine is (the client shares its two cores).
  console.log(`  server CPU per status read: ${serverUs.toFixed(1)} µs (${(1e6 / serverUs).toFixed(0)} reads per CPU-second)`);
  await p.kill();
  rmSync(dir, { recursive: true, force: true });
}

async function stopLatency(): Promise<void> {
  const h = await startTestApp({ listen: true });
  h.app.ctx.rig.sim?.setPresence(true);
  const port = Number(new URL(h.app.baseUrl).port);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  for (let i = 0; i < 210; i++) {
    const r = h.app.ctx.executor.start(executeRequest(h.app, KOSHARI, newKey()) as unknown as ExecuteRequest, null);
    if (r.kind !== 'status') throw new Error('no execution');
    for (let k = 0; k < 20 && (h.app.ctx.rig.heaters.get('pot')?.power ?? 0) === 0; k++) await h.clock.advanceAsync(500);
    // Let the pot heat for a simulated second before the stop, as in a kitchen: stopping the instant the relay
    // closes delivers no heat to the water while the heat-response check (thermal_runaway) counts the power
    // over its sampling interval, and 65 such zero-length pulses in a row trip it.
    await h.clock.advanceAsync(1000);
    if ((h.app.ctx.rig.heaters.get('pot')?.power ?? 0) === 0) {
      const safety = (h.app.ctx.executor.status(r.status.id) as { 'x-hearth-safety'?: unknown } | undefined)?.['x-hearth-safety'];
      throw new Error(`the pot never heated (stop ${i}): ${JSON.stringify(safety ?? h.app.ctx.executor.status(r.status.id))}`);
    }
    let offAt = 0;
    const off = h.app.ctx.bus.on('heater', (e) => {
      if (e.heater === 'pot' && e.power === 0 && offAt === 0) offAt = performance.now();
    });
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: `/v1/executions/${r.status.id}/stop`, method: 'POST', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end();
    });
    off();
    if (i >= 10) samples.push(offAt - t0); // ten warm-up stops are not counted
  }
  agent.destroy();
  const s = summarize(samples);
  console.log(
    `stop request to heater off over HTTP (n=${s.n}): p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, max ${s.max.toFixed(2)} ms   (target p99 < 10 ms)`,
  );
  await h.close();
}

/**
 * Spawn to ready, CPU time and resident memory of `hearth start`, as installed (no flags) and with the V8 flag the
 * systemd unit may set for a small device (docs/performance.md). Rounds alternate so load affects both alike.
 */
async function startup(): Promise<void> {
  const how = compiled ? 'compiled dist/' : 'source via tsx (run `npm run build` for the real figure)';
  const variants: { name: string; flags: string[] }[] = [
    { name: 'no flags', flags: [] },
    { name: altFlags.join(' '), flags: altFlags },
  ];
  const figures = variants.map(() => ({ times: [] as number[], cpu: [] as number[], rss: [] as number[] }));
  for (let i = 0; i < 5; i++) {
    for (const [v, variant] of variants.entries()) {
      const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-'));
      const p = await spawnStart(dir, variant.flags);
      const f = figures[v] as (typeof figures)[number];
      f.times.push(p.ms);
      await new Promise((r) => setTimeout(r, 300));
      f.cpu.push(cpuMs(p.pid));
      f.rss.push(rssMb(p.pid));
      await p.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const [v, variant] of variants.entries()) {
    const f = figures[v] as (typeof figures)[number];
    report(`spawn to ready line, node bin/hearth.mjs start, ${variant.name} (${how})`, f.times, 'ms', '< 1500 ms');
    report(`CPU time (user+sys) to ready + 300 ms, ${variant.name}`, f.cpu, 'ms');
    report(`resident memory after start, ${variant.name} (${how})`, f.rss, 'MB', '< 80 MB');
  }
}

const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`load average before: ${load}`);
// `--only=reads,stop,start` runs a subset (`npm run bench -- executor --only=reads`).
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const altFlags = (process.argv.find((a) => a.startsWith('--flags='))?.slice('--flags='.length) ?? '--max-semi-space-size=2').split(' ');
const run = (part: string) => only === undefined || only.includes(part);
if (run('reads')) {
  await statusReads();
  await statusReads(altFlags);
}
if (run('stop')) await stopLatency();
if (run('start')) await startup();
