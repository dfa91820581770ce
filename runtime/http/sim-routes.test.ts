import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { newKey, startTestApp } from '../app/testing.js';

t.test('/sim/v1/faults: a fault the rig cannot simulate is a 422 problem, never a 500', async (t) => {
  const h = await startTestApp({ keepDir: true });
  const rigFile = join(h.dataDir, 'rig.json');
  writeFileSync(rigFile, JSON.stringify({ kind: 'simulated', hob: 'serial' }));
  await h.close();
  const app = await startTestApp({ dataDir: h.dataDir, config: { rig: rigFile } });
  t.teardown(() => app.close());
  const fault = (body: unknown) =>
    app.app.ctx.http.inject({
      method: 'POST',
      url: '/sim/v1/faults',
      headers: { ...app.auth, 'content-type': 'application/json', 'idempotency-key': newKey() },
      payload: JSON.stringify(body),
    });

  const unknown = await fault({ kind: 'stuck', target: 'wok' });
  t.equal(unknown.statusCode, 422);
  t.match(unknown.headers['content-type'], /^application\/problem\+json/);
  t.match(unknown.json(), {
    type: `${app.app.baseUrl}/errors/validation-failed`,
    status: 422,
    detail: /^body \/target: fault target "wok" is neither a sensor nor a heater/,
    errors: [{ in: 'body', pointer: '/target' }],
  });

  const unsupported = await fault({ kind: 'relay_welded', target: 'pan' });
  t.equal(unsupported.statusCode, 422, 'the serial hob cannot have a welded relay');
  t.match(unsupported.json(), {
    type: `${app.app.baseUrl}/errors/validation-failed`,
    detail: /^body \/kind: the serial hob "pan" takes the faults serial_lost and open_circuit, not relay_welded/,
    errors: [{ in: 'body', pointer: '/kind' }],
  });
  t.same(app.app.ctx.rig.sim?.snapshot().faults, [], 'nothing was injected');

  const ok = await fault({ kind: 'serial_lost', target: 'pan' });
  t.equal(ok.statusCode, 200, ok.body);
  t.match(ok.json().faults, [{ kind: 'serial_lost', target: 'pan' }]);
  t.equal((await fault({ clear: true })).statusCode, 200);
});

t.test('/sim/v1/presence and /sim/v1/estop flip the rig inputs; anything but a boolean is 422', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const post = (url: string, body: unknown) =>
    app.app.ctx.http.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  t.equal((await post('/sim/v1/presence', { present: true })).json().presence, true);
  t.equal((await post('/sim/v1/presence', { present: false })).json().presence, false);
  t.equal((await post('/sim/v1/estop', { pressed: true })).json().estop, true);
  t.equal((await post('/sim/v1/estop', { pressed: false })).json().estop, false);
  for (const [url, body] of [
    ['/sim/v1/presence', { present: 'yes' }],
    ['/sim/v1/presence', { pressed: true }],
    ['/sim/v1/estop', {}],
    ['/sim/v1/estop', { pressed: true, extra: 1 }],
  ] as const) {
    const res = await post(url, body);
    t.equal(res.statusCode, 422, `${url} ${JSON.stringify(body)}`);
  }
});

t.test('every /sim answer ends with a newline, over a real socket (state, change, problem)', async (t) => {
  const app = await startTestApp({ listen: true });
  t.teardown(() => app.close());
  const base = app.app.baseUrl;
  const json = { 'content-type': 'application/json' };
  const answers = [
    await fetch(`${base}/sim/v1/state`),
    await fetch(`${base}/sim/v1/presence`, { method: 'POST', headers: json, body: '{"present":true}' }),
    await fetch(`${base}/sim/v1/estop`, { method: 'POST', headers: json, body: '{"pressed":"yes"}' }),
    await fetch(`${base}/sim/v1/clock`, { method: 'POST', headers: json, body: '{"advanceMs":1}' }),
  ];
  t.same(
    answers.map((r) => r.status),
    [200, 200, 422, 200],
  );
  for (const r of answers) {
    const text = await r.text();
    t.ok(text.endsWith('}\n'), `${r.url} ${r.status} ends with a newline`);
    t.equal(Number(r.headers.get('content-length')), Buffer.byteLength(text), 'content-length counts it');
    t.doesNotThrow(() => JSON.parse(text), 'still JSON');
  }
});
