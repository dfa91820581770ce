/**
 * `npm run bench -- memory`: resident memory of a hub under the hostile mix of `npm run fuzz` (REST, MCP, SSE,
 * WebSocket, MQTT, pairing, webhooks, raw HTTP; `--requests=N`, default 15,000). A child process
 * (bench/memory-child.ts) starts the hub and sends the mix; this process samples the child's VmRSS every 100 ms
 * and prints RSS when the hub is up (before), the peak, and 30 s after the run (`--after-ms=N`), with the
 * breakdown per phase (V8 heap, external and array buffers, anonymous memory). The client's own allocations
 * share that process, so the figures are an upper bound on the hub's. Targets: peak ≤ 150 MB, after ≤ before +
 * 20 MB. `--variants` also runs V8's default young generation (HEARTH_YOUNG_GENERATION=grow) and
 * MALLOC_ARENA_MAX=2 side by side.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('memory-child.ts', import.meta.url));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--requests=') || a.startsWith('--after-ms=') || a.startsWith('--seed='));

interface Phase {
  phase: string;
  rss: number;
  anon: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  newSpace: number;
  oldSpace: number;
  largeObjects: number;
}

async function run(label: string, env: Record<string, string>): Promise<void> {
  const load0 = loadavg()[0];
  const p = spawn(process.execPath, ['--import', 'tsx', child, ...flags], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const phases: Phase[] = [];
  let done: Record<string, number> | undefined;
  let out = '';
  let peak = 0;
  let peakPhase = 'start';
  const sampler = setInterval(() => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'));
      const mb = Number(m?.[1] ?? 0) / 1024;
      if (mb > peak) {
        peak = mb;
        peakPhase = phases.at(-1)?.phase ?? 'start-up';
      }
    } catch {
      // the child has exited
    }
  }, 100);
  p.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
      const line = JSON.parse(out.slice(0, i)) as Phase & { done?: boolean };
      out = out.slice(i + 1);
      if (line.done) done = line as unknown as Record<string, number>;
      else phases.push(line);
    }
  });
  await new Promise((r) => p.once('exit', r));
  clearInterval(sampler);
  const before = phases.find((x) => x.phase === 'hub started');
  const after = phases.at(-1);
  console.log(`\n${label} (load average ${load0.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after)`);
  if (!before || !after || !done) {
    console.log('  the run did not finish');
    return;
  }
  console.log(
    `  ${done.requests} hostile requests, ${done.failures} failures, ${done.stops} stops (${done.stopsNotCut} without the heat cut)`,
  );
  const f = (v: number) => v.toFixed(1).padStart(7);
  console.log(
    `  RSS before ${before.rss.toFixed(1)} MB, peak ${peak.toFixed(1)} MB (after "${peakPhase}"), after ${after.rss.toFixed(1)} MB`,
  );
  console.log(`  peak ${peak.toFixed(1)} MB (target ≤ 150); after − before ${(after.rss - before.rss).toFixed(1)} MB (target ≤ 20)`);
  console.log('  phase                      RSS   anon  heapTot heapUsed  new    old   large  external arrayBuf');
  for (const x of phases)
    console.log(
      `  ${x.phase.padEnd(22)}${f(x.rss)}${f(x.anon)}${f(x.heapTotal)}${f(x.heapUsed)}${f(x.newSpace)}${f(x.oldSpace)}${f(x.largeObjects)}${f(x.external)}${f(x.arrayBuffers)}`,
    );
}

await run('hub as hearth start runs it (young generation kept small)', {});
if (process.argv.includes('--variants')) {
  await run("V8's default young generation (HEARTH_YOUNG_GENERATION=grow)", { HEARTH_YOUNG_GENERATION: 'grow' });
  await run('young generation kept small, MALLOC_ARENA_MAX=2', { MALLOC_ARENA_MAX: '2' });
}
