// @slow: starts hubs as processes (npm run test:fast skips this file; npm test runs it)
/**
 * sd_notify against a datagram socket this test listens on (socat), as systemd would: READY=1 with MAINPID,
 * WATCHDOG=1 at half of WATCHDOG_USEC, STOPPING=1; nothing at all without NOTIFY_SOCKET.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { spawnCli } from '../../test-support/cli.js';
import { createSdNotifier } from './sd-notify.js';

async function listen(t: Test): Promise<{ path: string; received: () => string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-notify-'));
  const path = join(dir, 'notify.sock');
  const socat: ChildProcess = spawn('socat', ['-u', `UNIX-RECV:${path}`, 'STDOUT'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  socat.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  t.teardown(() => {
    socat.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  await until(() => existsSync(path), 'socat to listen');
  return { path, received: () => out };
}

/** Wait on a condition; the bound only limits how long a broken run hangs (generous for a loaded machine). */
async function until(check: () => boolean, what: string, ms = 30_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

t.test('READY, WATCHDOG at half the interval, STOPPING', async (t) => {
  const { path, received } = await listen(t);
  const errors: string[] = [];
  const n = createSdNotifier({
    env: { NOTIFY_SOCKET: path, WATCHDOG_USEC: '300000', PATH: process.env.PATH },
    pid: 4242,
    onError: (m) => errors.push(m),
  });
  t.teardown(() => n.close());
  t.equal(n.enabled, true);
  t.equal(n.watchdogMs, 150, 'half of 300 ms');
  n.ready('listening');
  await until(() => received().includes('READY=1'), 'READY=1');
  t.match(received(), /MAINPID=4242/);
  t.match(received(), /STATUS=listening/);
  await until(() => received().split('WATCHDOG=1').length > 2, 'two watchdog pings');
  n.stopping();
  await until(() => received().includes('STOPPING=1'), 'STOPPING=1');
  const after = received().split('WATCHDOG=1').length;
  await new Promise((r) => setTimeout(r, 400));
  t.equal(received().split('WATCHDOG=1').length, after, 'no pings after STOPPING');
  t.same(errors, []);
});

t.test('WATCHDOG=1 only while healthy: not while the caller says no, not after a blocked loop', async (t) => {
  const { path, received } = await listen(t);
  let healthy = false;
  const skipped: string[] = [];
  const n = createSdNotifier({
    env: { NOTIFY_SOCKET: path, WATCHDOG_USEC: '200000', PATH: process.env.PATH },
    pid: 4343,
    healthy: () => healthy,
    onSkip: (why) => skipped.push(why),
  });
  t.teardown(() => n.close());
  n.ready();
  await until(() => received().includes('READY=1'), 'READY=1');
  await until(() => skipped.length >= 3, 'three skipped pings');
  t.notMatch(received(), /WATCHDOG=1/, 'no ping while unhealthy');
  t.match(skipped[0], /unhealthy/);
  healthy = true;
  await until(() => received().includes('WATCHDOG=1'), 'a ping once healthy');
  // Block the loop for five ping intervals: the tick that finally runs is late by more than an interval.
  const before = skipped.length;
  const start = Date.now();
  while (Date.now() - start < 500) {
    // busy: the event loop cannot run
  }
  await until(() => skipped.length > before, 'the late tick skipped');
  t.match(skipped.at(-1), /event loop was blocked for \d+ ms/);
});

t.test('a watchdog meant for another process is not pinged; no socket means nothing is sent', async (t) => {
  const other = createSdNotifier({ env: { NOTIFY_SOCKET: '/nonexistent', WATCHDOG_USEC: '1000000', WATCHDOG_PID: '1' }, pid: 99 });
  t.equal(other.watchdogMs, 0);
  const none = createSdNotifier({ env: {}, command: '/nonexistent/never-run', onError: () => t.fail('nothing should be spawned') });
  t.equal(none.enabled, false);
  none.ready();
  none.stopping();
  await none.send('READY=1');
  const missing: string[] = [];
  const broken = createSdNotifier({
    env: { NOTIFY_SOCKET: '/tmp/x' },
    command: '/nonexistent/systemd-notify',
    onError: (m) => missing.push(m),
  });
  await broken.send('READY=1');
  await broken.send('READY=1');
  t.equal(missing.length, 1, 'one clear error for a missing sender');
  t.match(missing[0], /is systemd-notify installed/);
});

t.test('hearth start tells systemd it is ready, pings the watchdog, and says when it stops', async (t) => {
  const { path, received } = await listen(t);
  const dir = mkdtempSync(join(tmpdir(), 'hearth-notify-start-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { child } = await spawnCli(
    ['start', '--http-port', '0', '--data-dir', dir, '--sim-speed', 'manual', '--log-level', 'warn'],
    /hearth ready /,
    {
      env: { ...process.env, NOTIFY_SOCKET: path, WATCHDOG_USEC: '400000' },
      timeoutMs: 60_000,
    },
  );
  t.teardown(() => child.kill('SIGKILL'));
  await until(() => received().includes('READY=1'), 'READY=1', 10_000);
  t.match(received(), new RegExp(`MAINPID=${child.pid}`), 'MAINPID is the hearth process');
  await until(() => received().includes('WATCHDOG=1'), 'a watchdog ping', 10_000);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  t.equal(await exited, 0);
  await until(() => received().includes('STOPPING=1'), 'STOPPING=1', 10_000);
});
