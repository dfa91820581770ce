/**
 * One `hearth start` per data directory. The lock is a listening Unix socket that only the kernel can
 * release: on Linux in the abstract namespace (named after the data directory's real path), so it vanishes
 * the instant its process dies, kill -9 and OOM kills included, and nothing stale is ever left to clean up.
 * Elsewhere it is a socket file in the data directory; a file left by a dead process is recognized because
 * nothing answers on it, and is taken over.
 *
 * A second start connects to the socket, reads the holder's pid and exits 2 naming it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { controlActive } from '../../safety/controls.js';
import { CliError } from '../cli/errors.js';

export const LOCK_SOCKET = 'hearth.lock';

export interface DataDirLock {
  readonly address: string;
  release(): Promise<void>;
}

/** The socket address that stands for `dataDir` (exported for tests). */
export function lockAddress(dataDir: string): string {
  if (process.platform === 'linux') {
    const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 32);
    return `\0hearth-data-dir-${key}`;
  }
  return join(dataDir, LOCK_SOCKET);
}

/** Ask whoever holds `address` for its pid; undefined when nobody answers. */
function holderPid(address: string, timeoutMs = 5000): Promise<number | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const sock = connect(address);
    const done = (pid: number | undefined) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(pid);
    };
    const timer = setTimeout(() => done(Number.parseInt(text, 10) || -1), timeoutMs);
    sock.on('data', (d: Buffer) => {
      text += d.toString();
    });
    sock.on('end', () => done(Number.parseInt(text, 10) || -1));
    sock.on('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? undefined : -1));
  });
}

function listen(address: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((sock) => {
      sock.on('error', () => {});
      sock.end(`${process.pid}\n`);
    });
    server.once('error', reject);
    server.listen(address, () => {
      server.off('error', reject);
      server.on('error', () => {});
      server.unref();
      resolve(server);
    });
  });
}

/**
 * Take the data directory's lock, or throw a CliError (exit 2) naming the pid of the process that holds it.
 * The directory is created when it does not exist yet.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    throw new CliError(`${dataDir}: cannot create the data directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const address = lockAddress(dataDir);
  const nothing: DataDirLock = { address, release: async () => {} };
  // The mutation run's "data-dir-lock" mutant: two processes share one data directory.
  if (!controlActive('data-dir-lock')) return nothing;
  let server: Server | undefined;
  for (let attempt = 0; attempt < 2 && !server; attempt++) {
    try {
      server = await listen(address);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') {
        throw new CliError(`${dataDir}: cannot lock the data directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
      const pid = await holderPid(address);
      if (pid !== undefined) {
        const who = pid > 0 ? `pid ${pid}` : 'another process';
        throw new CliError(`${dataDir}: already in use by a running hearth (${who}); one process per data directory`);
      }
      // A socket file whose process is gone (never on Linux, where the kernel drops the name with the process).
      if (!address.startsWith('\0')) unlinkSync(address);
    }
  }
  if (!server) throw new CliError(`${dataDir}: cannot lock the data directory`);
  const held = server;
  return {
    address,
    release: () =>
      new Promise<void>((resolve) => {
        held.close(() => resolve());
      }),
  };
}
