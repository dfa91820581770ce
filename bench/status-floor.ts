/**
 * Status reads against a floor (`npm run bench -- hash`): `hearth start` (compiled when dist/ is fresh) serves
 * `GET /v1/executions/:id` of a running koshari over keep-alive HTTP, and a bare Node + Fastify process
 * (bench/fastify-floor.mjs) serves a route answering the same JSON body (same size, same shape, serialized per
 * request). Rounds alternate between the two; the server's CPU per read is the figure a busy machine disturbs least.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keepAliveRound } from './keepalive.js';
import { benchDataDir, cpuMs, spawnServer, startKoshari } from './spawn-server.js';
import { report } from './stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));

function spawnFloor(env: Record<string, string>): Promise<{ pid: number; url: string; kill: () => Promise<void> }> {
  const child = spawn(process.execPath, [join(root, 'bench/fastify-floor.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`floor exited ${code}`)));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /floor ready (\S+)/.exec(out);
      if (m)
        resolve({
          pid: child.pid as number,
          url: m[1] as string,
          kill: () =>
            new Promise((r) => {
              child.removeAllListeners('exit');
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
    });
  });
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] as number;

/** CPU a server uses while nobody asks it anything over `ms` (a cooking hub's control loop, journal, guard link). */
async function idleCpuMsPerS(pid: number, ms = 2000): Promise<number> {
  const cpu0 = cpuMs(pid);
  await new Promise((r) => setTimeout(r, ms));
  return ((cpuMs(pid) - cpu0) * 1000) / ms;
}

export async function statusReadsAgainstFloor(rounds = 5): Promise<void> {
  const { dir, token } = benchDataDir();
  const hub = await spawnServer(
    ['start', '--http-port', '0', '--mqtt-port', '0', '--data-dir', dir, '--log-level', 'warn', '--sim-speed', 'manual'],
    '/v1/safety-limits',
  );
  const auth = { authorization: `Bearer ${token}` };
  try {
    const id = await startKoshari(hub.url, auth, 'bench-status-floor-1');
    const statusUrl = `${hub.url}/v1/executions/${id}`;
    const body = await (await fetch(statusUrl, { headers: auth })).text();
    const bodyFile = join(dir, 'status-body.json');
    writeFileSync(bodyFile, body);
    const floor = await spawnFloor({ FLOOR_BODY_FILE: bodyFile });
    const floorUrl = `${floor.url}/floor/body`;
    const floorBody = await (await fetch(floorUrl)).text();
    console.log(
      `status read: GET /v1/executions/:id, ${body.length} bytes; floor: node + Fastify answering the same JSON (${floorBody.length} bytes); 32 keep-alive connections, ${rounds} rounds of 1.5 s each, alternating after two warm-up rounds each; hearth's reads carry a real read-scope bearer token; load average ${loadavg()[0].toFixed(2)}`,
    );
    // Warm-up, the same for both: under load the first 1.5 s round after a short one still ran slower in both
    // servers (the JIT not yet done with the path), which made the median of 5 depend on one round.
    for (let r = 0; r < 2; r++) {
      await keepAliveRound(hub.pid, statusUrl, auth);
      await keepAliveRound(floor.pid, floorUrl, {});
    }
    const hubRounds = [];
    const floorRounds = [];
    for (let r = 0; r < rounds; r++) {
      hubRounds.push(await keepAliveRound(hub.pid, statusUrl, auth));
      floorRounds.push(await keepAliveRound(floor.pid, floorUrl, {}));
    }
    report(
      'hearth status reads',
      hubRounds.map((x) => x.perSecond),
      'reads/s',
    );
    report(
      'floor (bare Fastify, same body)',
      floorRounds.map((x) => x.perSecond),
      'reads/s',
    );
    report(
      'hearth server CPU per status read',
      hubRounds.map((x) => x.serverUs),
      'µs',
    );
    report(
      'floor server CPU per read',
      floorRounds.map((x) => x.serverUs),
      'µs',
    );
    const cpuRatio = median(hubRounds.map((x) => x.serverUs)) / median(floorRounds.map((x) => x.serverUs));
    const rateRatio = median(floorRounds.map((x) => x.perSecond)) / median(hubRounds.map((x) => x.perSecond));
    const idle = await idleCpuMsPerS(hub.pid);
    console.log(
      `  ratio, server CPU per read: ${cpuRatio.toFixed(2)}× the floor (medians; target ≤ 1.5×: ${cpuRatio <= 1.5 ? 'met' : 'not met'})`,
    );
    console.log(
      `  hearth's CPU while nobody reads (cooking koshari): ${idle.toFixed(0)} ms/s, about ${((idle * 1000) / median(hubRounds.map((x) => x.perSecond))).toFixed(1)} µs of each read's figure (included)`,
    );
    console.log(`  ratio, reads per second: the floor is ${rateRatio.toFixed(2)}× hearth (the client shares the machine)`);
    console.log(`  load average after: ${loadavg()[0].toFixed(2)}`);
    await floor.kill();
  } finally {
    await hub.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
