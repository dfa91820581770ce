// @slow: starts hubs as processes (npm run test:fast skips this file; npm test runs it)
/**
 * The bus as a user meets it: `hearth start` with the MQTT options, a token from `hearth token create`, and
 * Debian's mosquitto_pub / mosquitto_sub (MQTT 5) as the third-party clients: an e-stop request goes in, the
 * retained svc.safety.estop event comes out. Also the option errors of `hearth start`.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { runCli, spawnCli } from '../../test-support/cli.js';

const run = promisify(execFile);

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

t.test('hearth start --mqtt-port 0 --kitchen-id: mosquitto clients request an e-stop and see it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bus-start-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const created = await runCli(['token', 'create', '--scopes', 'read', '--name', 'wall-panel', '--data-dir', dir]);
  t.equal(created.code, 0, created.stderr);
  const token = created.stdout.trim();
  const { child, match } = await spawnCli(
    [
      'start',
      '--http-port',
      '0',
      '--mqtt-port',
      '0',
      '--kitchen-id',
      'flat-3',
      '--data-dir',
      dir,
      '--sim-speed',
      'manual',
      '--log-level',
      'info',
    ],
    /"mqtt:\/\/127\.0\.0\.1:(\d+)"[\s\S]*hearth ready|hearth ready[\s\S]*"mqtt:\/\/127\.0\.0\.1:(\d+)"/,
    { timeoutMs: 60_000 },
  );
  t.teardown(() => stop(child));
  const port = match[1] ?? match[2];
  const common = ['-V', 'mqttv5', '-h', '127.0.0.1', '-p', String(port), '-u', 'wall-panel', '-P', token];
  await run('mosquitto_pub', [...common, '-t', 'svc/flat-3/command/estop', '-q', '1', '-m', '{}']);
  // Subscribing after the fact: the alarm is retained until a person resets it.
  const { stdout } = await run('mosquitto_sub', [...common, '-t', 'svc/flat-3/safety/#', '-C', '1', '-W', '10', '-F', '%t %r %q %p']);
  const fields = stdout.trim().split(' ');
  const [topic, retained, qos] = fields;
  t.equal(topic, 'svc/flat-3/safety/kitchen');
  t.equal(retained, '1');
  t.equal(qos, '2');
  const ce = JSON.parse(fields.slice(3).join(' '));
  t.equal(ce.type, 'svc.safety.estop');
  t.equal(ce.svckitchen, 'flat-3');
  t.match(ce.data.message, /e-stop requested over MQTT by wall-panel/);
  await t.rejects(
    run('mosquitto_pub', [...common.slice(0, -2), '-P', 'hth_wrong', '-t', 'svc/flat-3/command/estop', '-m', '{}']),
    'a wrong token is refused',
  );
});

t.test('hearth start refuses bad bus options in one line', async (t) => {
  for (const [args, pattern] of [
    [['--kitchen-id', 'a/b'], /--kitchen-id must be 1-64 letters, digits, - or _/],
    [['--mqtt-port', '70000'], /--mqtt-port must be <= 65535/],
    [['--mqtt-url', 'http://broker'], /--mqtt-url must be a broker URL like mqtt:\/\/host:1883/],
  ] as const) {
    const r = await runCli(['start', '--http-port', '0', '--data-dir', join(tmpdir(), 'hearth-never-created'), ...args]);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, pattern);
    t.equal(r.stderr.trim().split('\n').length, 1, 'one line');
  }
});
