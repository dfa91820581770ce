/**
 * Start a real mosquitto (Debian's package) on a free loopback port, for tests and benchmarks: optionally with
 * a password file and an ACL that mirrors the embedded broker's rules. Fails, never skips, when the binary is
 * missing (scripts/test-deps.mjs installs it).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Mosquitto {
  port: number;
  url: string;
  stop(): Promise<void>;
}

export interface MosquittoOptions {
  /** user → password; when given, anonymous clients are refused. */
  users?: Record<string, string>;
  /** The body of an ACL file (see docs/events.md). */
  acl?: string;
  /** Turn Nagle's algorithm off on client sockets (`set_tcp_nodelay`), as the embedded broker does. */
  noDelay?: boolean;
  /** Listen on this port (a restart on the port a previous run used); default a free one. */
  port?: number;
  /** Keep sessions and queued messages in this folder across a stop and a start (`persistence true`). */
  persistenceDir?: string;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function waitReady(child: ChildProcess, port: number, log: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mosquitto did not start on port ${port}:\n${log()}`)), 10_000);
    const check = () => {
      if (log().includes(`port ${port}`) || /mosquitto version .* running/.test(log())) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr?.on('data', check);
    child.stdout?.on('data', check);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run mosquitto (install the Debian package mosquitto): ${err.message}`));
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mosquitto exited with ${code}:\n${log()}`));
    });
  });
}

export async function startMosquitto(o: MosquittoOptions = {}): Promise<Mosquitto> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-mosquitto-'));
  const port = o.port ?? (await freePort());
  const lines = [
    `listener ${port} 127.0.0.1`,
    'log_dest stderr',
    'log_type error',
    'log_type warning',
    'log_type notice',
    'log_type information',
    ...(o.persistenceDir ? ['persistence true', `persistence_location ${o.persistenceDir}/`] : ['persistence false']),
  ];
  if (o.users) {
    const pw = join(dir, 'passwd');
    writeFileSync(pw, '');
    for (const [user, pass] of Object.entries(o.users)) execFileSync('mosquitto_passwd', ['-b', pw, user, pass]);
    lines.push('allow_anonymous false', `password_file ${pw}`);
  } else {
    lines.push('allow_anonymous true');
  }
  if (o.noDelay) lines.push('set_tcp_nodelay true');
  if (o.acl) {
    writeFileSync(join(dir, 'acl'), o.acl);
    lines.push(`acl_file ${join(dir, 'acl')}`);
  }
  writeFileSync(join(dir, 'mosquitto.conf'), `${lines.join('\n')}\n`);
  // Started as root, mosquitto drops to its own user: it must still read its files.
  chmodSync(dir, 0o755);
  for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o644);
  const child = spawn('mosquitto', ['-c', join(dir, 'mosquitto.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await waitReady(child, port, () => out);
  child.removeAllListeners('exit');
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
