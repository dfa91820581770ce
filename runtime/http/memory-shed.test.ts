/**
 * Load shedding near the memory limit (issue 26): while the hub's memory reading is over its threshold, new
 * requests get 503 `memory-pressure` as a problem document with Retry-After, and the stops are still served:
 * the executor's stop and the emergency stop cut the fryer's physical power. Below the threshold again, the hub
 * answers as before. The reading is swapped in (a real limit would need a real cgroup: see shed.test.ts).
 */
import t from 'tap';
import { executeRequest, newKey } from '../app/testing.js';
import { FRY_RECIPE, startHub, type TestHub } from '../hub/test-helpers.js';

const power = (h: TestHub) => h.app.ctx.rig.heaters.get('fryer')?.power ?? -1;

t.test('near the memory limit the hub refuses new requests with memory-pressure, and stops still cut the heat', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const admin = h.token(['read', 'cook', 'admin']);
  await h.presence(true);
  const shedder = h.app.shedder;
  if (!shedder) throw new Error('the hub installs no load shedding');
  let used = 10;
  const reading = { limit: 100, used: () => used, source: 'test' };
  shedder.setReading(reading);
  t.equal((await h.call('GET', '/v1/safety-limits', { token: admin })).status, 200, 'below the threshold: served');

  for (const via of ['executor stop', 'emergency stop'] as const) {
    used = 10;
    shedder.sample();
    if (h.app.ctx.supervisor.status().latched) {
      t.equal((await h.call('POST', '/svc/v1/safety/reset', { token: admin, body: {} })).status, 200, 'latch reset');
    }
    const key = newKey();
    const start = await h.call('POST', '/v1/executions', { token: admin, key, body: executeRequest(h.app, FRY_RECIPE, key) });
    t.equal(start.status, 202, JSON.stringify(start.body).slice(0, 300));
    const id = start.body.id as string;
    t.ok(await h.runUntil(() => power(h) > 0, 120_000, 1000), `${via}: the fryer heats`);

    used = 90; // over 85 % of the limit
    shedder.sample();
    const refused = await h.call('GET', `/v1/executions/${id}`, { token: admin });
    t.equal(refused.status, 503, `${via}: a status read is refused`);
    t.equal(refused.headers.get('retry-after'), '5');
    t.match(refused.headers.get('content-type'), /application\/problem\+json/);
    t.match(refused.body, { type: /\/errors\/memory-pressure$/, status: 503 });
    const again = await h.call('POST', '/v1/executions', {
      token: admin,
      key: newKey(),
      body: executeRequest(h.app, FRY_RECIPE, newKey()),
    });
    t.equal(again.status, 503, `${via}: a new cook is refused`);

    const stop =
      via === 'executor stop'
        ? await h.call('POST', `/v1/executions/${id}/stop`, { token: admin, body: {} })
        : await h.call('POST', '/svc/v1/safety/estop', { token: admin, body: { reason: 'memory test' } });
    t.ok(stop.status === 200 || stop.status === 202, `${via}: served while shedding (${stop.status})`);
    t.ok(await h.runUntil(() => power(h) === 0, 10_000, 100), `${via}: the fryer's physical power is 0`);
  }
  used = 10;
  shedder.sample();
  t.equal((await h.call('GET', '/v1/safety-limits', { token: admin })).status, 200, 'below the threshold again: served');
});
