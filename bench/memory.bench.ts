/**
 * `npm run bench -- memory`: resident memory of a hub under the hostile mix of `npm run fuzz` (REST, MCP, SSE,
 * WebSocket, MQTT, pairing, webhooks, raw HTTP; `--requests=N`, default 15,000). The hub runs in a process of
 * its own (bench/memory-hub.ts) and the mix comes from another (bench/memory-child.ts, which starts the hub); this
 * process samples the hub's VmRSS every 100 ms and prints RSS when the hub is up (before), the peak, and 30 s
 * after the run (`--after-ms=N`), with the breakdown per phase (V8 heap, external and array buffers, anonymous
 * memory) and the client's own peak beside it, for the hub as a bare `hearth start` runs from a shell and as
 * systemd/hearth.service and `npm start` run it (the unit's Environment= lines: its allocator settings; `--no-unit` skips it).
 * Targets: peak ≤ 150 MB, after ≤ before + 20 MB. `--hub-env=K=V,…` and `--hub-flags=FLAGS` add a hub with that
 * environment or those Node flags (each repeatable). `--variants` also
 * runs the young generation capped on the command line (--max-semi-space-size=1) and MALLOC_ARENA_MAX=2, alone and
 * together, side by side (`--young-default` adds V8's default young generation), `--rounds=N` alternates them;
 * `--snapshots=DIR` writes heap snapshots of the hub before and after (bench/heap-diff.mjs compares them).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Reading } from './memory-hub.js';

const child = fileURLToPath(new URL('memory-child.ts', import.meta.url));
const flags = process.argv.slice(2).filter((a) => ['--requests=', '--after-ms=', '--seed=', '--snapshots='].some((f) => a.startsWith(f)));

/** What the hub reports of itself per phase (bench/memory-hub.ts). */
type Phase = Reading;

const rssOf = (pid: number | undefined): number => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0; // the process has exited
  }
};

async function run(label: string, env: Record<string, string>, hubFlags = ''): Promise<void> {
  const load0 = loadavg()[0];
  const p = spawn(process.execPath, ['--import', 'tsx', child, ...flags, ...(hubFlags ? [`--hub-flags=${hubFlags}`] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const phases: Phase[] = [];
  let done: (Record<string, number> & { failureList: string[] }) | undefined;
  let out = '';
  let hubPid: number | undefined;
  let kind = '';
  let peak = 0;
  let clientPeak = 0;
  let peakPhase = 'start';
  const sampler = setInterval(() => {
    const mb = rssOf(hubPid);
    if (mb > peak) {
      peak = mb;
      peakPhase = phases.at(-1)?.phase ?? 'start-up';
    }
    clientPeak = Math.max(clientPeak, rssOf(p.pid));
  }, 100);
  p.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
      const text = out.slice(0, i);
      out = out.slice(i + 1);
      // What the hub itself prints (e.g. with `--hub-flags=--trace-gc`) goes to stderr, marked.
      if (!text.startsWith('{')) {
        process.stderr.write(`  hub: ${text}\n`);
        continue;
      }
      const line = JSON.parse(text) as Phase & { done?: boolean; hubPid?: number; kind?: string };
      if (line.hubPid) {
        hubPid = line.hubPid;
        kind = line.kind ?? '';
      } else if (line.done) done = line as unknown as typeof done;
      else phases.push(line);
    }
  });
  await new Promise((r) => p.once('exit', r));
  clearInterval(sampler);
  const before = phases.find((x) => x.phase === 'hub started');
  const after = phases.at(-1);
  console.log(`\n${label}: the hub ${kind} (load average ${load0.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after)`);
  if (!before || !after || !done) {
    console.log('  the run did not finish');
    return;
  }
  console.log(
    `  ${done.requests} hostile requests, ${done.failures} failures, ${done.stops} stops (${done.stopsNotCut} without the heat cut)`,
  );
  const f = (v: number) => v.toFixed(1).padStart(7);
  for (const x of done.failureList ?? []) console.log(`  failure: ${x}`);
  if (flags.some((a) => a.startsWith('--snapshots=')))
    console.log("  (heap snapshots were written: the peak and the phases after them include the snapshot's own memory)");
  const settled = phases.find((x) => x.phase.endsWith(' s after')) ?? after;
  const growth = settled.rss - before.rss;
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(
    `  hub RSS before ${before.rss.toFixed(1)} MB, peak ${peak.toFixed(1)} MB (after "${peakPhase}"), ${settled.phase} ${settled.rss.toFixed(1)} MB; the client's own peak ${clientPeak.toFixed(1)} MB`,
  );
  console.log(
    `  peak ${peak.toFixed(1)} MB (target ≤ 150: ${met(peak <= 150)}); ${settled.phase} − before ${growth.toFixed(1)} MB (target ≤ 20: ${met(growth <= 20)})`,
  );
  console.log('  phase                      RSS   anon  heapTot heapUsed  new    old   large   code external arrayBuf idle GCs');
  for (const x of phases)
    console.log(
      `  ${x.phase.padEnd(22)}${f(x.rss)}${f(x.anon)}${f(x.heapTotal)}${f(x.heapUsed)}${f(x.newSpace)}${f(x.oldSpace)}${f(x.largeObjects)}${f(x.code)}${f(x.external)}${f(x.arrayBuffers)}${String(x.idleGcs ?? '').padStart(9)}`,
    );
}

/** The `Environment=` lines of systemd/hearth.service but NODE_ENV (as the cgroup test): its allocator settings. */
const unitEnv: Record<string, string> = Object.fromEntries(
  [
    ...readFileSync(fileURLToPath(new URL('../systemd/hearth.service', import.meta.url)), 'utf8').matchAll(
      /^Environment=([A-Za-z_]+)=(.*)$/gm,
    ),
  ]
    .filter((m) => m[1] !== 'NODE_ENV')
    .map((m) => [m[1] as string, m[2] as string]),
);
const unitLabel = Object.entries(unitEnv)
  .map(([k, v]) => `${k}=${v}`)
  .join(' ');

// `--rounds=N` repeats the cycle (alternating the variants), for medians under a noisy load.
const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 1);
for (let r = 1; r <= rounds; r++) {
  const tag = rounds > 1 ? ` [round ${r}/${rounds}]` : '';
  await run(`hub as a bare hearth start runs it from a shell (no allocator settings)${tag}`, {});
  // The same hub with the environment systemd/hearth.service gives it (its allocator settings), read from the unit.
  if (!process.argv.includes('--no-unit'))
    await run(`hub with the environment of systemd/hearth.service and npm start (${unitLabel})${tag}`, unitEnv);
  // `--hub-env=K=V,K=V` (repeatable): one more hub per option, with that environment (allocator settings).
  for (const a of process.argv.filter((x) => x.startsWith('--hub-env='))) {
    const env = Object.fromEntries(
      a
        .slice(10)
        .split(',')
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    await run(`${a.slice(10)}${tag}`, env);
  }
  // `--hub-flags=FLAGS` (repeatable): one more hub per option, with those Node/V8 flags on its command line.
  for (const a of process.argv.filter((x) => x.startsWith('--hub-flags='))) await run(`${a.slice(12)}${tag}`, {}, a.slice(12));
  if (!process.argv.includes('--variants')) continue;
  await run(`young generation capped on the command line (--max-semi-space-size=1)${tag}`, {}, '--max-semi-space-size=1');
  await run(`MALLOC_ARENA_MAX=2${tag}`, { MALLOC_ARENA_MAX: '2' });
  await run(`--max-semi-space-size=1 and MALLOC_ARENA_MAX=2${tag}`, { MALLOC_ARENA_MAX: '2' }, '--max-semi-space-size=1');
  if (process.argv.includes('--young-default'))
    await run(`V8's default young generation (HEARTH_YOUNG_GENERATION=grow)${tag}`, { HEARTH_YOUNG_GENERATION: 'grow' });
}
