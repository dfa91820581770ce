/**
 * The hub's idle collector may pause the loop only while nothing heats (platform/idle-collect.ts): `nothingHeats`
 * over the supervisor's status is false while a cook holds the fryer and true again once the stop has cut it.
 */
import t from 'tap';
import { startFryCook, startHub } from '../hub/test-helpers.js';
import { nothingHeats } from './app.js';

t.test('nothing heats: not while a cook holds heat, again once it is stopped', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  t.ok(nothingHeats(h.app.ctx.supervisor.status()), 'a hub at rest');
  const person = h.token(['cook', 'read']);
  await startFryCook(h, person);
  t.ok((h.app.ctx.rig.heaters.get('fryer')?.power ?? 0) > 0, 'the fryer is heating');
  t.notOk(nothingHeats(h.app.ctx.supervisor.status()), 'while heating: no collection');
  await h.call('POST', '/svc/v1/safety/estop', { token: person, body: {} });
  await h.clock.advanceAsync(1_000);
  t.equal(h.app.ctx.rig.heaters.get('fryer')?.power, 0, 'the stop cut the fryer');
  t.ok(nothingHeats(h.app.ctx.supervisor.status()), 'after the stop: collections may run again');
});

t.test('a lease alone, or a heater on, is heat', async (t) => {
  t.notOk(nothingHeats({ latched: false, heaters: { fryer: { power: 0, leaseExpiresAt: 5, owner: 'x' } } }));
  t.notOk(nothingHeats({ latched: false, heaters: { fryer: { power: 0.5 } } }));
  t.ok(nothingHeats({ latched: false, heaters: { fryer: { power: 0 }, pot: { power: 0, wire: 'cut' } } }));
});
