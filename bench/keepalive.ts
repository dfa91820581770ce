/**
 * Keep-alive HTTP load for benchmarks: `connections` clients read one path in a loop for a while, and the
 * server's CPU per answered request is read from /proc (a busy machine disturbs it far less than requests per
 * second). For benchmarks only.
 */
import { Agent, request } from 'node:http';
import { cpuMs } from './spawn-server.js';

export function get(agent: Agent, port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

export interface KeepAliveRound {
  /** Requests answered per second of wall time. */
  perSecond: number;
  /** The server's CPU time per request, µs. */
  serverUs: number;
}

/** One round of `ms` ms of reads of `url` (every answer must be 200) over `connections` keep-alive sockets. */
export async function keepAliveRound(
  pid: number,
  url: string,
  headers: Record<string, string>,
  ms = 1500,
  connections = 32,
): Promise<KeepAliveRound> {
  const u = new URL(url);
  const port = Number(u.port);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  const end = t0 + ms;
  let n = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const status = await get(agent, port, u.pathname, headers);
        if (status !== 200) throw new Error(`GET ${u.pathname} answered ${status}`);
        n++;
      }
    }),
  );
  const wall = performance.now() - t0;
  const serverUs = ((cpuMs(pid) - cpu0) * 1000) / n;
  agent.destroy();
  return { perSecond: (n * 1000) / wall, serverUs };
}
