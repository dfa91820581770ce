// @slow: starts hubs as processes (npm run test:fast skips this file; npm test runs it)
/**
 * `hearth start --fault` as a newcomer uses it (docs/hil.md): a spawned device on the simulated rig with the
 * oil thermocouple set to open a minute in, koshari started over real HTTP, simulated time moved through the
 * sim surface; the trip, its reason and hint show in the execution's status, its log, the safety state and the
 * event feed (SSE). A bad spec stops start-up with one line and exit 2.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli, spawnCli } from '../test-support/cli.js';

const READY = /hearth ready (http:\/\/127\.0\.0\.1:\d+)\n/;

async function sseUntil(url: string, token: string, pattern: RegExp, ms: number): Promise<string> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  let text = '';
  try {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', 'last-event-id': '0' },
      signal: ac.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const dec = new TextDecoder();
    while (!pattern.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += dec.decode(value);
    }
  } catch {
    // aborted: return what came
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return text;
}

t.test('hearth start --fault oil-open-at=60s: the trip with reason and hint everywhere', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-fault-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const tok = await runCli(['token', 'create', '--scopes', 'read,cook', '--name', 'newcomer', '--data-dir', dir]);
  t.equal(tok.code, 0, tok.stderr);
  const token = tok.stdout.trim();
  const { child, match } = await spawnCli(
    ['start', '--http-port', '0', '--data-dir', dir, '--sim-speed', 'manual', '--log-level', 'warn', '--fault', 'oil-open-at=60s'],
    READY,
    { timeoutMs: 60_000 },
  );
  t.teardown(() => child.kill('SIGKILL'));
  const url = match[1] as string;
  let n = 0;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(method === 'POST' ? { 'idempotency-key': `fault-e2e-${process.pid}-${++n}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const state = (await call('GET', '/sim/v1/state')).body;
  t.match(state.faults, [{ kind: 'open_circuit', target: 'oil', atMs: 60000 }], 'the fault is scheduled');
  await call('POST', '/sim/v1/presence', { present: true });
  const recipe = 'example-koshari';
  const koshari = JSON.parse(readFileSync(new URL('../examples/recipes/koshari.svc.json', import.meta.url), 'utf8')) as { hash: string };
  const key = `fault-cook-${process.pid}`;
  const started = await fetch(`${url}/v1/executions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({
      core: '0.2.0',
      kind: 'ExecuteRequest',
      id: `req-${key}`,
      recipe,
      recipeHash: koshari.hash,
      requestedBy: 'household:newcomer',
      idempotencyKey: key,
    }),
  });
  t.equal(started.status, 202);
  const id = ((await started.json()) as { id: string }).id;
  let status = (await call('GET', `/v1/executions/${id}`)).body;
  for (let i = 0; i < 12 && status.state !== 'stopped'; i++) {
    await call('POST', '/sim/v1/clock', { advanceMs: 10_000 });
    status = (await call('GET', `/v1/executions/${id}`)).body;
  }
  t.equal(status.state, 'stopped', 'the execution stopped');
  t.match(status['x-hearth-safety'], { reason: 'sensor_fault', subject: 'oil', message: /open circuit/, hint: /thermocouple/ });
  const log = (await call('GET', `/v1/executions/${id}/log`)).body;
  t.equal(log.outcome, 'aborted_safe');
  t.match(log.safetyEvents, [{ limit: 'oil', action: 'cut_heat' }]);
  t.match(log['x-hearth-events'], [{ kind: 'safety_stop', message: /sensor_fault.*open circuit/, hint: /thermocouple/ }]);
  const safety = (await call('GET', '/svc/v1/safety')).body;
  t.match(safety, { latched: true, trip: { reason: 'sensor_fault', subject: 'oil' }, hint: /thermocouple/ });
  t.same((await call('GET', '/sim/v1/state')).body.heaters, { fryer: 0, pot: 0, pan: 0 }, 'every heater off');
  const sse = await sseUntil(`${url}/svc/v1/events?types=svc.safety`, token, /sensor_fault[^\n]*thermocouple/, 5000);
  t.match(sse, /"type":"svc\.safety\.limit_tripped"[^\n]*"reason":"sensor_fault"/, 'the trip is on the event feed');
  t.match(sse, /thermocouple/, 'with its hint');
  child.kill('SIGTERM');
});

t.test('a bad --fault stops start-up with one line and exit 2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-fault-bad-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bad = await runCli(['start', '--data-dir', dir, '--http-port', '0', '--fault', 'oil-melt-at=60s']);
  t.equal(bad.code, 2);
  t.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  t.match(bad.stderr, /--fault "oil-melt-at=60s": unknown fault "melt"/);
  const target = await runCli(['start', '--data-dir', dir, '--http-port', '0', '--fault', 'wok-open']);
  t.equal(target.code, 2);
  t.match(target.stderr, /fault target "wok" is neither a sensor nor a heater/);
  t.equal(target.stderr.trim().split('\n').length, 1, target.stderr);
});
