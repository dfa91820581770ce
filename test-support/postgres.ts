/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` into a temporary folder, `pg_ctl start` on
 * a free loopback port (no Unix socket outside that folder, fsync off), and `stop()` shuts it down and removes
 * the folder. PostgreSQL refuses to run as root, so under root the cluster belongs to the `postgres` system
 * user (which Debian's postgresql package creates) and the binaries run through `runuser`.
 *
 * The binaries are looked up on PATH and in Debian's /usr/lib/postgresql/<major>/bin (scripts/test-deps.mjs
 * installs the package). `postgresBinaries()` returns null when they are absent, so a test can skip with a
 * printed reason there, and only there.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PostgresCluster {
  port: number;
  /** `postgres://hearth@127.0.0.1:<port>/postgres`. */
  url: string;
  /** Create an empty database and return its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** The folder holding initdb and pg_ctl, or null when PostgreSQL is not installed. */
export function postgresBinaries(): string | null {
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' });
  const fromPath = onPath.status === 0 ? onPath.stdout.trim().replace(/\/pg_ctl$/, '') : '';
  if (fromPath && existsSync(join(fromPath, 'initdb'))) return fromPath;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((d) => /^[0-9]+$/.test(d))
    .sort((a, b) => Number(b) - Number(a));
  for (const m of majors) if (existsSync(join(root, m, 'bin', 'initdb'))) return join(root, m, 'bin');
  return null;
}

/** Why PostgreSQL tests cannot run here, or null when they can. */
export function postgresMissing(): string | null {
  return postgresBinaries() === null ? 'PostgreSQL is not installed (Debian package postgresql; scripts/test-deps.mjs installs it)' : null;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function systemUser(name: string): { uid: number; gid: number } | null {
  const r = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  return r.status === 0 && g.status === 0 ? { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) } : null;
}

export async function startPostgres(): Promise<PostgresCluster> {
  const bin = postgresBinaries();
  if (bin === null) throw new Error(postgresMissing() ?? 'PostgreSQL is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'hearth-pg-'));
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  let asUser: string[] = [];
  if (isRoot) {
    const owner = systemUser('postgres');
    if (!owner) throw new Error('running as root, PostgreSQL needs the postgres system user (Debian package postgresql creates it)');
    chownSync(dir, owner.uid, owner.gid);
    asUser = ['runuser', '-u', 'postgres', '--'];
  }
  const run = (tool: string, args: string[]) => {
    const [cmd, ...rest] = [...asUser, join(bin, tool), ...args];
    return execFileSync(cmd as string, rest, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  };
  const data = join(dir, 'data');
  const log = join(dir, 'log');
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'hearth', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(err as { stderr?: string }).stderr ?? (err as Error).message}`);
  }
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    try {
      run('pg_ctl', ['-D', data, '-o', opts, '-l', log, '-w', '-t', '60', 'start']);
      break;
    } catch (err) {
      // Another process may have taken the port between the probe and the start: try another one.
      if (attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`pg_ctl start failed: ${(err as { stderr?: string }).stderr ?? (err as Error).message}`);
      }
    }
  }
  const url = `postgres://hearth@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    port,
    url,
    async createDatabase(name: string) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      return `postgres://hearth@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
