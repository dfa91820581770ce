import t from 'tap';
import { startHub } from '../test-helpers.js';

t.test('inventory: upsert, expiry on the device clock, remove; bad items are 422', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const inv = h.token(['inventory', 'read']);
  const patch = (body: unknown) => h.call('PATCH', '/svc/v1/inventory', { token: inv, body });
  const r = await patch({
    upsert: [
      { name: 'Fresh coriander', quantity: 1, unit: 'bunch', expires: '2026-06-02' },
      { id: 'oil', name: 'Sunflower oil', quantity: 2, unit: 'L', expires: '2027-01-01' },
    ],
  });
  t.equal(r.status, 200);
  t.same(
    (r.body.items as { id: string }[]).map((i) => i.id),
    ['fresh-coriander', 'oil'],
  );
  t.same(r.body.expiringSoon, ['fresh-coriander'], 'expires within three days of the device clock');
  const changed = await patch({ upsert: [{ id: 'oil', name: 'Sunflower oil', quantity: 0.5, unit: 'L' }], remove: ['fresh-coriander'] });
  t.same(changed.body.items, [
    { id: 'oil', name: 'Sunflower oil', quantity: 0.5, unit: 'L', updatedAt: new Date(h.clock.now()).toISOString() },
  ]);
  const bad = await patch({ upsert: [{ name: 'Eggs', quantity: -1, unit: '1' }] });
  t.equal(bad.status, 422);
  t.match(bad.body.detail, /quantity/);
  const badDate = await patch({ upsert: [{ name: 'Eggs', quantity: 6, unit: '1', expires: 'soon' }] });
  t.equal(badDate.status, 422);
  const noName = await patch({ upsert: [{ name: '!!!', quantity: 1, unit: '1' }] });
  t.equal(noName.status, 422, 'a name with no letters or digits gives no id');
  t.equal(((await h.call('GET', '/svc/v1/inventory', { token: inv })).body.items as unknown[]).length, 1, 'failed patches changed nothing');
});

t.test('orders: created awaiting approval; a person approves once', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const agent = h.token(['order:create', 'read'], 'agent');
  const person = h.token(['admin'], 'human');
  const created = await h.call('POST', '/svc/v1/orders', {
    token: agent,
    body: { lines: [{ item: 'oil', quantity: 1, unit: 'L' }], note: 'for frying' },
  });
  t.equal(created.status, 201);
  t.equal(created.body.state, 'awaiting_approval');
  t.equal(created.body.kind, 'OrderIntent');
  t.equal((created.body.createdBy as { kind: string }).kind, 'agent');
  const id = created.body.id as string;
  t.equal(created.headers.get('location'), `/svc/v1/orders/${id}`);
  t.equal((await h.call('POST', `/svc/v1/orders/${id}/approve`, { token: agent })).status, 403);
  t.equal((await h.call('GET', `/svc/v1/orders/${id}`, { token: agent })).body.state, 'awaiting_approval');
  const ok = await h.call('POST', `/svc/v1/orders/${id}/approve`, { token: person });
  t.equal(ok.status, 200);
  t.equal(ok.body.state, 'approved');
  t.equal((ok.body.approvedBy as { kind: string }).kind, 'human');
  t.equal((await h.call('POST', `/svc/v1/orders/${id}/approve`, { token: person })).status, 409);
  t.equal((await h.call('GET', '/svc/v1/orders/ord-nope', { token: agent })).status, 404);
  const empty = await h.call('POST', '/svc/v1/orders', { token: agent, body: { lines: [] } });
  t.equal(empty.status, 422);
  t.equal(((await h.call('GET', '/svc/v1/orders', { token: agent })).body.items as unknown[]).length, 1);
});

t.test('notify and mode', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const admin = h.token(['admin', 'read', 'notify']);
  t.equal((await h.call('GET', '/svc/v1/mode', { token: admin })).body.mode, 'normal');
  const set = await h.call('PUT', '/svc/v1/mode', { token: admin, body: { mode: 'quiet' } });
  t.equal(set.body.mode, 'quiet');
  t.equal((await h.call('GET', '/svc/v1/mode', { token: admin })).body.mode, 'quiet');
  t.equal((await h.call('PUT', '/svc/v1/mode', { token: admin, body: { mode: 'party' } })).status, 422);
  const n = await h.call('POST', '/svc/v1/notify', {
    token: admin,
    body: { audience: 'household', urgency: 'high', message: { en: 'Oil is hot', ar: 'الزيت ساخن' } },
  });
  t.equal(n.status, 202);
  t.equal(n.body.state, 'delivered');
  t.equal(n.body.urgency, 'time_critical', 'the older word high is the reference’s time_critical');
  const bad = await h.call('POST', '/svc/v1/notify', {
    token: admin,
    body: { audience: 'household', urgency: 'high', message: { 'not a language': 'x' } },
  });
  t.equal(bad.status, 422);
});
