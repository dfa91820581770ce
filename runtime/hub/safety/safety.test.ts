import t from 'tap';
import type { BusEvents } from '../../events/bus.js';
import { FRY_RECIPE, startHub } from '../test-helpers.js';
import type { Session } from '../types.js';

t.test('e-stop with a read-only token cuts heat on the simulated rig and aborts the session', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const person = h.token(['cook', 'read']);
  const readOnly = h.token(['read'], 'agent');
  const safety: BusEvents['safety'][] = [];
  h.app.ctx.bus.on('safety', (e) => safety.push(e));
  await h.presence(true);
  const s = (
    await h.call('POST', '/svc/v1/sessions', {
      token: person,
      body: { recipes: [{ recipeId: FRY_RECIPE }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' },
    })
  ).body as unknown as Session;
  await h.call('POST', `/svc/v1/sessions/${s.id}/confirm`, { token: person, body: { acknowledgedRules: s.confirmation.requiredRules } });
  t.equal((await h.call('POST', `/svc/v1/sessions/${s.id}/start`, { token: person })).status, 202);
  await h.clock.advanceAsync(30_000);
  t.ok((h.app.ctx.rig.heaters.get('fryer')?.power ?? 0) > 0, 'the fryer is heating');

  const stop = await h.call('POST', '/svc/v1/safety/estop', { token: readOnly, key: false, body: { reason: 'smoke' } });
  t.equal(stop.status, 202);
  t.equal(stop.body.latched, true);
  t.equal(stop.body.action, 'heat_off_all');
  for (const heater of h.app.ctx.rig.heaters.values()) t.equal(heater.power, 0, `${heater.id} is off`);
  const estop = safety.find((e) => e.kind === 'estop');
  t.equal(estop?.action, 'heat_off_all');
  t.match(estop?.message, /emergency stop by agent/);
  const after = h.hub.sessions.get(s.id);
  t.equal(after.state, 'aborted');
  t.equal(h.app.ctx.executor.status(after.recipes[0]?.executionId ?? '')?.state, 'stopped');
  await h.clock.advanceAsync(30_000);
  t.equal(h.app.ctx.rig.heaters.get('fryer')?.power, 0, 'heat stays off while latched');

  // A second e-stop while latched still broadcasts.
  const before = safety.length;
  t.equal((await h.call('POST', '/svc/v1/safety/estop', { token: readOnly, key: false })).status, 202);
  t.equal(safety.length, before + 1, JSON.stringify(safety.slice(before).map((e) => e.kind)));
  t.equal(safety.at(-1)?.kind, 'estop');

  const state = await h.call('GET', '/svc/v1/safety', { token: readOnly });
  t.equal(state.body.latched, true);
  t.match(state.body.hint, /reset/);
  t.equal((state.body.trip as { reason: string }).reason, 'estop');
  t.equal((state.body.trip as { statedReason?: string }).statedReason, 'smoke', 'the latched trip keeps the stopper’s words');
  t.match((state.body.trip as { source?: string }).source, /via REST$/);

  const s2 = (
    await h.call('POST', '/svc/v1/sessions', {
      token: person,
      body: { recipes: [{ recipeId: FRY_RECIPE }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' },
    })
  ).body as unknown as Session;
  await h.call('POST', `/svc/v1/sessions/${s2.id}/confirm`, { token: person, body: { acknowledgedRules: s2.confirmation.requiredRules } });
  t.equal((await h.call('POST', `/svc/v1/sessions/${s2.id}/start`, { token: person })).status, 409, 'nothing starts while latched');

  const agentReset = await h.call('POST', '/svc/v1/safety/reset', { token: readOnly, body: {} });
  t.equal(agentReset.status, 403);
  t.match(agentReset.body.type, /not-human-approver$/);
  const reset = await h.call('POST', '/svc/v1/safety/reset', { token: person, body: { note: 'checked the fryer' } });
  t.equal(reset.status, 200);
  t.equal(reset.body.latched, false);
  t.equal(
    (await h.call('POST', `/svc/v1/sessions/${s2.id}/start`, { token: person })).status,
    202,
    'cooking starts again after a person reset',
  );
});

t.test('e-stop needs a valid token over HTTP; the physical button needs none', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const none = await h.call('POST', '/svc/v1/safety/estop', { key: false });
  t.equal(none.status, 401);
  t.match(none.headers.get('www-authenticate'), /^Bearer/);
  const bad = await h.call('POST', '/svc/v1/safety/estop', { token: 'hth_not-a-real-token', key: false });
  t.equal(bad.status, 401);
  t.equal(h.app.ctx.supervisor.status().latched, false, 'no token, no stop over HTTP');

  const sim = h.app.ctx.rig.sim;
  if (!sim) throw new Error('simulated rig expected');
  sim.pressEstop(true);
  await h.presence(true);
  const person = h.token(['read']);
  const state = await h.call('GET', '/svc/v1/safety', { token: person });
  t.equal(state.body.latched, true, 'the button latched a stop');
  const held = await h.call('POST', '/svc/v1/safety/reset', { token: person, body: {} });
  t.equal(held.status, 409, 'no reset while the button is held');
  sim.pressEstop(false);
  await h.clock.advanceAsync(1000);
  t.equal((await h.call('POST', '/svc/v1/safety/reset', { token: person, body: {} })).body.latched, false);
});
