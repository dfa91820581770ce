// @slow: starts hubs as processes, kills one mid-heat (npm run test:fast skips this file; npm test runs it)
/**
 * The device process as a user runs it: `hearth start` spawned from the CLI, `hearth token create`, and the
 * README walkthrough over HTTP; then a SIGKILL in the middle of heating and a restart on the same data.
 *
 * The hubs run the simulated rig from a rig file with a stall tolerance of a minute: the loop watchdog and the heat
 * guard (real time, 700 and 600 ms by default) are not what these tests are about, and on a loaded machine a hub
 * merely not scheduled for that long while heating would latch a safety stop. Their own tests are the guard and
 * watchdog scenarios (test-support/guard-scenarios.ts, output-scenarios.ts); the blocked loop below checks the
 * tolerance reaches both.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { repoRoot, runCli, spawnCli, tolerantRigFile } from '../../test-support/cli.js';

const READY = /hearth ready (http:\/\/127\.0\.0\.1:\d+)\n/;
const koshari = JSON.parse(readFileSync(join(repoRoot, 'examples/recipes/koshari.svc.json'), 'utf8')) as { id: string; hash: string };

/** Preloaded into one hub: SIGUSR2 blocks its main loop for 1.5 s (as the soak benchmark does), then says so. */
const BLOCK =
  "process.on('SIGUSR2', () => { const end = Date.now() + 1500; while (Date.now() < end) {} process.stderr.write('e2e: loop blocked\\n'); });";

async function startDevice(dataDir: string, o: { blockOnSignal?: boolean } = {}) {
  const rig = tolerantRigFile(dataDir);
  const preload = `--import data:text/javascript,${encodeURIComponent(BLOCK)}`;
  const { child, match, output } = await spawnCli(
    ['start', '--http-port', '0', '--data-dir', dataDir, '--rig', rig, '--sim-speed', 'manual', '--log-level', 'warn'],
    READY,
    {
      timeoutMs: 120_000,
      ...(o.blockOnSignal ? { env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${preload}`.trim() } } : {}),
    },
  );
  return { child, url: match[1] as string, output };
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** Wait for something a process says, with a generous deadline (never a timing assertion). */
async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let n = 0;
function api(url: string, token?: string) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(method === 'POST' ? { 'idempotency-key': `e2e-key-${process.pid}-${++n}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const cook = async () => {
    const key = `e2e-cook-${process.pid}-${++n}`;
    const body = {
      core: '0.2.0',
      kind: 'ExecuteRequest',
      id: `req-${n}`,
      recipe: koshari.id,
      recipeHash: koshari.hash,
      requestedBy: 'household:e2e',
      idempotencyKey: key,
    };
    return call('POST', '/v1/executions', body, { 'idempotency-key': key });
  };
  return { call, cook };
}

t.test('the walkthrough: refusal, presence, a full koshari, a stop mid-heat, a clean shutdown', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-e2e-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dev = await startDevice(dir);
  t.teardown(() => dev.child.kill('SIGKILL'));
  const tok = await runCli(['token', 'create', '--scopes', 'read,cook', '--name', 'walkthrough', '--data-dir', dir], {
    timeoutMs: 120_000,
  });
  t.equal(tok.code, 0, tok.stderr);
  const token = tok.stdout.trim();
  t.match(token, /^hth_/);
  const { call, cook } = api(dev.url, token);

  const refused = await cook();
  t.equal(refused.status, 202);
  t.match(refused.body, { state: 'refused', refusal: { reason: 'needs_human_present', node: 'n7' } });

  t.match((await call('POST', '/sim/v1/presence', { present: true })).body, { presence: true });
  const started = await cook();
  t.equal(started.status, 202);
  const id = started.body.id as string;
  let state = started.body.state as string;
  for (let i = 0; i < 40 && state !== 'completed'; i++) {
    await call('POST', '/sim/v1/clock', { advanceMs: 5 * 60_000 });
    state = (await call('GET', `/v1/executions/${id}`)).body.state;
  }
  const log = await call('GET', `/v1/executions/${id}/log`);
  t.equal(state, 'completed', JSON.stringify(log.body?.['x-hearth-events'] ?? log.body));
  t.equal(log.body.outcome, 'served');
  t.equal(log.body.steps.length, 20);

  const second = (await cook()).body;
  let heating = false;
  for (let i = 0; i < 60 && !heating; i++) {
    const sim = (await call('POST', '/sim/v1/clock', { advanceMs: 2000 })).body;
    heating = sim.heaters.pot > 0;
  }
  t.ok(heating, 'the pot is heating');
  const stop = await fetch(`${dev.url}/v1/executions/${second.id}/stop`, { method: 'POST' });
  t.equal(stop.status, 202);
  t.equal(((await stop.json()) as { state: string }).state, 'stopped');
  const after = (await call('GET', '/sim/v1/state')).body;
  t.same(after.heaters, { fryer: 0, pot: 0, pan: 0 }, 'heat off at once');

  dev.child.kill('SIGTERM');
  t.equal(await exited(dev.child), 0, 'SIGTERM exits 0');
  t.equal(
    dev
      .output()
      .split('\n')
      .filter((l) => l.startsWith('hearth ready')).length,
    1,
    'exactly one ready line',
  );
});

t.test('SIGKILL mid-heat, restart: heat off, the execution stopped with a log entry', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-crash-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const tok = await runCli(['token', 'create', '--scopes', 'read,cook', '--data-dir', dir], { timeoutMs: 120_000 });
  const token = tok.stdout.trim();
  const first = await startDevice(dir, { blockOnSignal: true });
  t.teardown(() => first.child.kill('SIGKILL'));
  const a = api(first.url, token);
  await a.call('POST', '/sim/v1/presence', { present: true });
  const id = (await a.cook()).body.id as string;
  let heating = false;
  for (let i = 0; i < 60 && !heating; i++) heating = (await a.call('POST', '/sim/v1/clock', { advanceMs: 2000 })).body.heaters.pot > 0;
  t.ok(heating, 'heating when killed');
  // The hub's loop blocked for 1.5 s with the pot on (no lease renewal, no watchdog heartbeat): past the guard's
  // default lease and the watchdog's default threshold, inside the rig's tolerance, so nothing may cut (it would
  // with the defaults).
  first.child.kill('SIGUSR2');
  await until(() => first.output().includes('e2e: loop blocked'), 'the hub to block its loop');
  const resumed = (await a.call('POST', '/sim/v1/clock', { advanceMs: 2000 })).body;
  t.ok(resumed.heaters.pot > 0, 'still heating after a stall within the tolerance');
  t.equal((await a.call('GET', `/v1/executions/${id}`)).body.state, 'running');
  first.child.kill('SIGKILL');
  await exited(first.child);

  const second = await startDevice(dir);
  t.teardown(() => second.child.kill('SIGKILL'));
  const b = api(second.url, token);
  const sim = (await b.call('GET', '/sim/v1/state')).body;
  t.same(sim.heaters, { fryer: 0, pot: 0, pan: 0 }, 'heat is off');
  t.equal(sim.activeExecution, null, 'nothing resumed');
  const status = await b.call('GET', `/v1/executions/${id}`);
  t.equal(status.body.state, 'stopped');
  const log = (await b.call('GET', `/v1/executions/${id}/log`)).body;
  t.equal(log.outcome, 'aborted_safe');
  t.match(log['x-hearth-events'].at(-1), { kind: 'restart', message: /was running/ });
  second.child.kill('SIGTERM');
  t.equal(await exited(second.child), 0);
});

t.test('bad configuration stops start-up with one line and exit 2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-cfg-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'hearth.yaml');
  writeFileSync(file, 'httpPort: eighty\n');
  const r = await runCli(['start', '--config', file]);
  t.equal(r.code, 2);
  t.equal(r.stderr.trim().split('\n').length, 1);
  t.match(r.stderr, new RegExp(`${file}: /httpPort must be integer`));
  const speed = await runCli(['start', '--sim-speed', 'fast', '--data-dir', dir]);
  t.equal(speed.code, 2);
  t.match(speed.stderr, /--sim-speed must be a number above 0/);
});
