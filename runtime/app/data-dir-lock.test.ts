// @slow: starts hubs as processes (npm run test:fast skips this file; npm test runs it)
/**
 * One hearth per data directory: in process (the lock itself) and as a user meets it (two `hearth start`
 * processes; a kill -9 of the holder, then a new start on the same data directory).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli, spawnCli } from '../../test-support/cli.js';
import { lockDataDir } from './data-dir-lock.js';

const READY = /hearth ready (http:\/\/127\.0\.0\.1:\d+)\n/;

function scratch(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-lock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function exited(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', resolve);
  });
}

const startArgs = (dir: string) => ['start', '--http-port', '0', '--data-dir', dir, '--sim-speed', 'manual', '--log-level', 'warn'];

t.test('the lock: a second holder is refused with the pid of the first; release frees it', async (t) => {
  const dir = scratch(t);
  const first = await lockDataDir(join(dir, 'var'));
  await t.rejects(lockDataDir(join(dir, 'var')), {
    exitCode: 2,
    message: new RegExp(`already in use by a running hearth \\(pid ${process.pid}\\)`),
  });
  const other = await lockDataDir(join(dir, 'elsewhere'));
  await other.release();
  await first.release();
  const again = await lockDataDir(join(dir, 'var'));
  await again.release();
});

t.test('a second hearth start on the same data directory exits 2 naming the running pid', async (t) => {
  const dir = scratch(t);
  const { child } = await spawnCli(startArgs(dir), READY, { timeoutMs: 90_000 });
  t.teardown(() => child.kill('SIGKILL'));
  const second = await runCli(startArgs(dir), { timeoutMs: 90_000 });
  t.equal(second.code, 2);
  t.match(
    second.stderr,
    new RegExp(`^hearth: ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: already in use by a running hearth \\(pid ${child.pid}\\)`),
  );
  t.notMatch(second.stdout, /hearth ready/);
  t.equal(child.exitCode, null, 'the first one keeps running');
  // The lock dies with its process: kill -9 leaves nothing stale, and the next start takes over.
  child.kill('SIGKILL');
  await exited(child);
  const third = await spawnCli(startArgs(dir), READY, { timeoutMs: 90_000 });
  t.teardown(() => third.child.kill('SIGKILL'));
  t.pass('a new start after kill -9 of the holder is ready');
  const done = exited(third.child);
  third.child.kill('SIGTERM');
  await done;
  t.equal(third.child.exitCode, 0);
});
