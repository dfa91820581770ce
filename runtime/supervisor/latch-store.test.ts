/**
 * The safety latch survives a restart (issue 12 item 7), and its reset needs an admin token or a person
 * sensed present; the reset is kept with who did it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { executeRequest, newKey } from '../app/testing.js';
import type { BusEvents } from '../events/bus.js';
import { FRY_RECIPE, startHub, type TestHub } from '../hub/test-helpers.js';
import { LatchStore } from './latch-store.js';

const power = (h: TestHub) => h.app.ctx.rig.heaters.get('fryer')?.power ?? -1;

async function heat(t: Test, h: TestHub, token: string): Promise<string> {
  const key = newKey();
  const r = await h.call('POST', '/v1/executions', { token, key, body: executeRequest(h.app, FRY_RECIPE, key) });
  t.equal(r.status, 202);
  await h.runUntil(() => power(h) > 0 || h.app.ctx.executor.status(r.body.id as string)?.state === 'refused', 120_000, 1000);
  return r.body.id as string;
}

t.test('a latched stop survives a restart, with its reason; a restart after a reset is not latched', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-latch-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  let h = await startHub({ dataDir });
  const person = h.token(['read', 'cook'], 'human', 'cook');
  const agent = h.token(['read'], 'agent', 'helper');
  const admin = h.token(['read', 'admin'], 'human', 'operator');
  const adminAgent = h.token(['read', 'admin'], 'agent', 'bot');
  await h.presence(true);
  await heat(t, h, person);
  t.ok(power(h) > 0, 'the fryer heats');
  const stop = await h.call('POST', '/svc/v1/safety/estop', { token: agent, key: false, body: { reason: 'smoke' } });
  t.equal(stop.status, 202);
  const trip = (stop.body.trip as { id: string; reason: string }) ?? { id: '', reason: '' };
  await h.close();

  h = await startHub({ dataDir });
  t.equal(power(h), 0, 'heat is off after the restart');
  const state = await h.call('GET', '/svc/v1/safety', { token: agent });
  t.equal(state.body.latched, true, 'the restarted process is still latched');
  t.match(state.body.trip, { id: trip.id, reason: 'estop', statedReason: 'smoke' }, 'with the same trip, reason and the stopper’s words');
  await h.presence(true);
  const id = await heat(t, h, person);
  t.equal(h.app.ctx.executor.status(id)?.state, 'refused', 'nothing starts while latched');
  t.equal(power(h), 0);

  const resets: BusEvents['safety'][] = [];
  h.app.ctx.bus.on('safety', (e) => e.kind === 'reset' && resets.push(e));
  const byAgent = await h.call('POST', '/svc/v1/safety/reset', { token: agent, body: {} });
  t.equal(byAgent.status, 403, 'an agent without admin cannot reset');
  t.match(byAgent.body.type, /not-human-approver$/);
  const byAdminAgent = await h.call('POST', '/svc/v1/safety/reset', { token: adminAgent, body: {} });
  t.equal(byAdminAgent.status, 403, 'an agent cannot reset, even with admin');
  await h.presence(false);
  const away = await h.call('POST', '/svc/v1/safety/reset', { token: person, body: {} });
  t.equal(away.status, 409, 'a person’s token with nobody sensed at the appliance cannot reset');
  t.match(away.body.type, /presence-required$/);
  t.equal(h.app.ctx.supervisor.status().latched, true);
  const byAdmin = await h.call('POST', '/svc/v1/safety/reset', { token: admin, body: {} });
  t.equal(byAdmin.status, 200, 'a person’s admin token resets, with nobody sensed');
  t.equal(byAdmin.body.latched, false);
  t.match(resets[0]?.by, /operator.*admin/, 'the reset event says who');
  t.match(new LatchStore(h.app.ctx.db).resets()[0], { tripId: trip.id, reason: 'estop', by: /operator/ }, 'and the store keeps it');
  await h.close();

  h = await startHub({ dataDir });
  t.teardown(() => h.close());
  t.equal(h.app.ctx.supervisor.status().latched, false, 'after a reset, a restart is not latched');
  // A person sensed present may reset too.
  h.app.ctx.supervisor.cutAll('estop', 'test');
  await h.presence(true);
  const present = await h.call('POST', '/svc/v1/safety/reset', { token: person, body: {} });
  t.equal(present.status, 200, 'a person’s token with a person sensed present resets');
});
