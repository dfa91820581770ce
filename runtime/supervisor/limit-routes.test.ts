import t from 'tap';
import { startTestApp } from '../app/testing.js';

const raise = {
  core: '0.2.0',
  kind: 'SafetyLimits',
  id: 'looser',
  version: '1.0.0',
  limits: [{ id: 'oil.device_max', kind: 'max_temp', appliesTo: { medium: 'oil' }, max: 250, unit: 'degC', action: 'cut_heat' }],
};
const tighter = { ...raise, id: 'tighter', limits: [{ ...raise.limits[0], max: 160 }] };

t.test('PUT/POST /v1/safety-limits: a raise is refused (403) and a safety event; nothing changes', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  const safety: Record<string, unknown>[] = [];
  h.app.ctx.bus.on('safety', (e) => safety.push(e as unknown as Record<string, unknown>));
  const before = JSON.stringify(h.app.ctx.device.limitsInForce);
  const send = (method: 'PUT' | 'POST', body: unknown, auth = true) =>
    h.app.ctx.http.inject({
      method,
      url: '/v1/safety-limits',
      headers: { ...(auth ? h.auth : {}), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  for (const method of ['PUT', 'POST'] as const) {
    const r = await send(method, raise);
    t.equal(r.statusCode, 403, method);
    t.match(r.headers['content-type'], /problem\+json/);
    t.match(r.json(), {
      type: /\/errors\/limit-raise-refused$/,
      detail: /oil.device_max \(max 190 → 250\)/,
      raised: [{ id: 'oil.device_max', from: 190, to: 250 }],
    });
  }
  t.equal(safety.length, 2, 'each attempt is a safety event');
  t.match(safety[0], { kind: 'limit_raise_refused', action: 'none', message: /human test over HTTP.*oil.device_max/ });
  const tight = await send('PUT', tighter);
  t.equal(tight.statusCode, 409, 'a tighter pack is not applied over the API either');
  t.match(tight.json(), { type: /\/errors\/conflict$/, detail: /device configuration/ });
  t.equal(safety.length, 2, 'tightening is no safety event');
  t.equal((await send('PUT', raise, false)).statusCode, 401, 'no token');
  t.equal(safety.length, 2);
  const bad = await send('PUT', { limits: 'none' });
  t.equal(bad.statusCode, 422);
  t.equal(JSON.stringify(h.app.ctx.device.limitsInForce), before, 'limits in force unchanged');
  t.equal(
    h.app.ctx.supervisor.effectiveMax('fryer', { op: 'cw.op.deep_fry', medium: 'oil' })?.maxC,
    190,
    'the supervisor still cuts at 190 °C',
  );
});
