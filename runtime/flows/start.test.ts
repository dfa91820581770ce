// @slow: starts Node-RED (npm run test:fast skips this file; npm test runs it)
/**
 * The newcomer's walk through `hearth start --flows`, as a user does it: the dashboard at /, the flow editor at
 * /flows with a login by admin token, an example flow imported, and Home Assistant discovery for every entity seen
 * with mosquitto_sub.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { repoRoot, runCli, spawnCli } from '../../test-support/cli.js';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

t.test('hearth start --flows: dashboard, editor, an example flow, Home Assistant discovery', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-maker-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const tok = await runCli(['token', 'create', '--scopes', 'read,admin', '--name', 'maker', '--data-dir', dir]);
  t.equal(tok.code, 0, tok.stderr);
  const token = tok.stdout.trim();
  const mqttPort = await freePort();
  const started = await spawnCli(
    [
      'start',
      '--http-port',
      '0',
      '--data-dir',
      dir,
      '--sim-speed',
      'manual',
      '--log-level',
      'info',
      '--flows',
      '--mqtt-port',
      String(mqttPort),
      '--kitchen-id',
      'demo',
    ],
    /hearth ready (http:\/\/127\.0\.0\.1:\d+)\n/,
    { timeoutMs: 90_000 },
  );
  const { child, match } = started;
  t.teardown(() => child.kill('SIGKILL'));
  const url = match[1] as string;
  const { output } = started;
  // The log line (stderr) and the ready line (stdout) travel on two pipes: wait for it, generously.
  for (let i = 0; i < 300 && !/\/flows\//.test(output()); i++) await new Promise((r) => setTimeout(r, 100));
  t.ok(output().includes(`${url}/flows/`), 'the editor URL is printed with the real port');
  t.notMatch(output(), /:0\/flows/, 'never with port 0');

  const page = await fetch(`${url}/`);
  t.equal(page.status, 200);
  t.match(await page.text(), /EMERGENCY STOP/, 'the dashboard');
  const state = (await (await fetch(`${url}/dashboard/v1/state`)).json()) as { sensors: unknown[]; heaters: unknown[] };
  t.ok(state.sensors.length > 0, 'live state without a token from loopback');

  t.match(await (await fetch(`${url}/flows/`)).text(), /Hearth flows/, 'the flow editor');
  const login = await fetch(`${url}/flows/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: 'node-red-editor',
      grant_type: 'password',
      scope: '*',
      username: 'maker',
      password: token,
    }).toString(),
  });
  t.equal(login.status, 200, 'logged in to the editor with the admin token');
  const session = ((await login.json()) as { access_token: string }).access_token;
  const example = JSON.parse(readFileSync(join(repoRoot, 'flows/examples/oil-ready.json'), 'utf8')) as { id: string }[];
  const imported = await fetch(`${url}/flows/flows`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json', 'node-red-deployment-type': 'full' },
    body: JSON.stringify(example),
  });
  t.ok([200, 204].includes(imported.status), `example imported (${imported.status})`);
  const now = (await (await fetch(`${url}/flows/flows`, { headers: { authorization: `Bearer ${session}` } })).json()) as { id: string }[];
  t.ok(
    now.some((n) => n.id === 'oil-sensor'),
    'the example flow is deployed',
  );

  const expected = state.sensors.length + state.heaters.length + 3;
  const sub = spawn(
    'mosquitto_sub',
    [
      '-h',
      '127.0.0.1',
      '-p',
      String(mqttPort),
      '-V',
      'mqttv5',
      '-u',
      'ha',
      '-P',
      token,
      '-t',
      'homeassistant/#',
      '-v',
      '-C',
      String(expected),
      '-W',
      '20',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  sub.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  t.equal(await exited(sub), 0, 'mosquitto_sub got every retained config');
  const topics = out
    .trim()
    .split('\n')
    .map((l) => l.split(' ')[0]);
  t.equal(new Set(topics).size, expected, 'one config per entity');
  t.ok(
    topics.every((x) => /^homeassistant\/(sensor|binary_sensor|button)\/hearth_demo\/[A-Za-z0-9_-]+\/config$/.test(x ?? '')),
    'discovery topics',
  );
  t.ok(topics.includes('homeassistant/button/hearth_demo/estop/config'), 'the e-stop button');

  child.kill('SIGTERM');
  t.equal(await exited(child), 0, 'a clean stop');
});
