/**
 * The end of relief records over a real socket (runtime/hub/relief/relief-lifecycle.ts): an allocation cancelled before
 * its handover gives its meals back to the need (fulfilled → open) and its quantities back to each pledge
 * (allocated → open); one whose handover began is 409; a pledge with live allocations is not withdrawn (409 naming
 * them) unless `cascade: true` cancels them; a closed need takes no more allocations, and `cancelAllocations`
 * cancels those not yet on the road. Scope relief, Idempotency-Key, records valid against relief.schema.json,
 * and an event for each change.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { type SchemaName, validate } from '../../../schemas/index.js';
import { packageRoot } from '../../config/paths.js';
import type { BusEvents } from '../../events/bus.js';
import { startHub, type TestHub } from '../test-helpers.js';

const REF = join(packageRoot(), '../shared/reference/examples/relief');
const ref = (f: string) => JSON.parse(readFileSync(join(REF, `${f}.json`), 'utf8')) as Record<string, unknown>;
const svc = '0.2.0';
const kg = (value: number) => ({ value, unit: 'kg' });

function valid(t: Test, name: SchemaName, body: unknown, label: string): void {
  const r = validate[name](body);
  t.ok(r.valid, `${label}: a valid ${name}${r.valid ? '' : ` ${JSON.stringify(r.issues.slice(0, 3))}`}`);
}

async function coordinator(t: Test) {
  const h = await startHub({ relief: true });
  t.teardown(() => h.close());
  const seen: BusEvents['relief'][] = [];
  h.app.ctx.bus.on('relief', (e) => seen.push(e));
  const coord = h.token(['read', 'relief'], 'agent', 'relief coordinator');
  const post = (path: string, body: unknown = {}) => h.call('POST', `/svc/v1/relief/${path}`, { token: coord, body });
  const get = async (path: string) => (await h.call('GET', `/svc/v1/relief/${path}`, { token: coord })).body;
  return { h, coord, seen, post, get };
}

/** The reference's need (650 meals), robot (720 meals) and surplus (tomatoes, lentils) pledges. */
async function reference(post: (path: string, body?: unknown) => ReturnType<TestHub['call']>) {
  for (const [path, f] of [
    ['needs', 'need'],
    ['pledges', 'pledge-robot'],
    ['pledges', 'pledge-surplus'],
  ] as const)
    if ((await post(path, ref(f))).status !== 201) throw new Error(`could not post ${f}`);
}

t.test('cancelling an allocation before its handover gives the quantities back', async (t) => {
  const { h, coord, seen, post, get } = await coordinator(t);
  await reference(post);
  t.equal((await post('allocations', ref('allocation'))).status, 201);
  t.match(await get('needs/need-2026-11-03-shubra'), { status: 'fulfilled', remaining: { meals: 0 } });
  t.match(await get('pledges/pl-881'), { status: 'allocated' });

  const reader = h.token(['read'], 'agent');
  const denied = await h.call('POST', '/svc/v1/relief/allocations/alloc-77/cancel', { token: reader, body: {} });
  t.equal(denied.status, 403, 'read alone cannot cancel');
  const keyless = await h.call('POST', '/svc/v1/relief/allocations/alloc-77/cancel', { token: coord, body: {}, key: false });
  t.equal(keyless.status, 400, 'no Idempotency-Key, no cancel');
  t.match(keyless.body.type, /idempotency-key-missing$/);
  const unknown = await post('allocations/alloc-77/cancel', { reason: 'x', extra: 1 });
  t.equal(unknown.status, 422, 'unknown members refused');
  t.equal((await post('allocations/alloc-nope/cancel')).status, 404);

  seen.length = 0;
  const cancelled = await post('allocations/alloc-77/cancel', { reason: 'road to school-12 closed' });
  t.equal(cancelled.status, 200, String(cancelled.body.detail ?? ''));
  valid(t, 'reliefAllocationRecord', cancelled.body, 'the cancelled allocation');
  t.match(cancelled.body, { state: 'cancelled', cancelled: { by: { kind: 'agent' }, reason: 'road to school-12 closed' } });
  const need = await get('needs/need-2026-11-03-shubra');
  valid(t, 'reliefNeedRecord', need, 'the need');
  t.match(need, { status: 'open', allocated: { meals: 0 }, remaining: { meals: 650, people: 650 } }, 'the need lacks its meals again');
  const robot = await get('pledges/pl-882');
  t.match(robot, { status: 'open', remaining: { meals: 720 } }, 'the robot has its 650 meals back');
  const surplus = await get('pledges/pl-881');
  valid(t, 'reliefPledgeRecord', surplus, 'the surplus pledge');
  t.match(surplus, { status: 'open', remaining: { items: [{ qty: kg(120) }, { qty: kg(200) }] } }, 'tomatoes and lentils are back');
  t.same(
    seen.map((e) => `${e.kind} ${e.id} ${e.status}`).sort(),
    ['allocation alloc-77 cancelled', 'need need-2026-11-03-shubra open', 'pledge pl-881 open', 'pledge pl-882 open'],
    'an event for each record changed',
  );
  const again = await post('allocations/alloc-77/cancel');
  t.equal(again.status, 409, 'cancelled twice');
  t.match(again.body, { type: /\/errors\/conflict$/, detail: /already cancelled/ });
  t.equal((await post('allocations/alloc-77/handover', { pledge: 'pl-881', step: 'delivered' })).status, 409, 'no handover of it');

  // The quantities are allocatable again; once a side says delivered, the allocation cannot be cancelled.
  const again2 = await post('allocations', { ...ref('allocation'), id: 'alloc-78' });
  t.equal(again2.status, 201, String(again2.body.detail ?? ''));
  t.equal((await post('allocations/alloc-78/handover', { pledge: 'pl-882', step: 'delivered' })).status, 200);
  const late = await post('allocations/alloc-78/cancel');
  t.equal(late.status, 409);
  t.match(late.body, { type: /conflict$/, state: 'in_transit', detail: /handover has begun \(pledge pl-882 delivered by agent/ });
  t.match(await get('needs/need-2026-11-03-shubra'), { status: 'fulfilled' }, 'nothing changed');
});

t.test('a part allocation cancelled: only its share goes back', async (t) => {
  const { post, get } = await coordinator(t);
  await reference(post);
  const a = await post('allocations', {
    svc,
    id: 'alloc-a',
    need: 'need-2026-11-03-shubra',
    assignments: [{ pledge: 'pl-882', meals: 200 }],
  });
  t.equal(a.status, 201, String(a.body.detail ?? ''));
  const b = await post('allocations', {
    svc,
    id: 'alloc-b',
    need: 'need-2026-11-03-shubra',
    assignments: [
      { pledge: 'pl-881', items: [{ ingredientId: 'cw.ing.tomato', qty: kg(20) }] },
      { pledge: 'pl-882', meals: 300 },
    ],
  });
  t.equal(b.status, 201, String(b.body.detail ?? ''));
  t.match(await get('needs/need-2026-11-03-shubra'), { allocated: { meals: 500 }, remaining: { meals: 150 } });
  t.equal((await post('allocations/alloc-b/cancel')).status, 200);
  t.match(await get('needs/need-2026-11-03-shubra'), { status: 'open', allocated: { meals: 200 }, remaining: { meals: 450 } });
  t.match(await get('pledges/pl-882'), { remaining: { meals: 520 } }, '720 − 200 still taken by alloc-a');
  t.match(await get('pledges/pl-881'), { remaining: { items: [{ key: 'cw.ing.tomato', qty: kg(120) }, { qty: kg(200) }] } });
  t.match(await get('allocations/alloc-a'), { state: 'allocated' }, 'the other allocation is untouched');
});

t.test('withdrawing a pledge: refused while it has live allocations, unless cascade', async (t) => {
  const { seen, post, get } = await coordinator(t);
  await reference(post);
  const free = await post('pledges', { ...ref('pledge-robot'), id: 'pl-spare' });
  t.equal(free.status, 201);
  const w = await post('pledges/pl-spare/withdraw', { reason: 'the robot is needed elsewhere' });
  t.equal(w.status, 200, String(w.body.detail ?? ''));
  valid(t, 'reliefPledgeRecord', w.body, 'the withdrawn pledge');
  t.match(w.body, { status: 'withdrawn', withdrawn: { reason: 'the robot is needed elsewhere' }, remaining: { meals: 720 } });
  t.match((await post('pledges/pl-spare/withdraw')).body, { type: /conflict$/, detail: /already withdrawn/ });
  const use = await post('allocations', { svc, need: 'need-2026-11-03-shubra', assignments: [{ pledge: 'pl-spare' }] });
  t.equal(use.status, 409, 'a withdrawn pledge is not allocated');
  t.match(use.body.detail, /withdrawn/);

  t.equal((await post('allocations', ref('allocation'))).status, 201);
  const refused = await post('pledges/pl-882/withdraw');
  t.equal(refused.status, 409);
  t.match(refused.body, {
    type: /\/errors\/conflict$/,
    pledge: 'pl-882',
    allocations: [{ id: 'alloc-77', state: 'allocated', need: 'need-2026-11-03-shubra' }],
    detail: /cascade: true/,
  });
  t.match(await get('pledges/pl-882'), { status: 'open' }, 'nothing changed');

  seen.length = 0;
  const cascade = await post('pledges/pl-882/withdraw', { cascade: true, reason: 'robot broken' });
  t.equal(cascade.status, 200, String(cascade.body.detail ?? ''));
  t.match(cascade.body, { status: 'withdrawn', remaining: { meals: 720 }, withdrawn: { cancelledAllocations: ['alloc-77'] } });
  t.match(await get('allocations/alloc-77'), { state: 'cancelled', cancelled: { reason: 'robot broken' } });
  t.match(await get('needs/need-2026-11-03-shubra'), { status: 'open', remaining: { meals: 650 } }, 'the need lacks its meals again');
  t.match(await get('pledges/pl-881'), { status: 'open' }, 'the other pledge of the allocation gets its food back');
  t.same(seen.map((e) => `${e.kind} ${e.id} ${e.status}`).sort(), [
    'allocation alloc-77 cancelled',
    'need need-2026-11-03-shubra open',
    'pledge pl-881 open',
    'pledge pl-882 withdrawn',
  ]);

  // In transit: not withdrawn, even with cascade.
  t.equal(
    (await post('allocations', { ...ref('allocation'), id: 'alloc-79', assignments: [{ pledge: 'pl-881' }, { pledge: 'pl-spare-2' }] }))
      .status,
    404,
  );
  t.equal((await post('pledges', { ...ref('pledge-robot'), id: 'pl-robot-2' })).status, 201);
  t.equal(
    (await post('allocations', { ...ref('allocation'), id: 'alloc-80', assignments: [{ pledge: 'pl-881' }, { pledge: 'pl-robot-2' }] }))
      .status,
    201,
  );
  t.equal((await post('allocations/alloc-80/handover', { pledge: 'pl-881', step: 'delivered' })).status, 200);
  const moving = await post('pledges/pl-robot-2/withdraw', { cascade: true });
  t.equal(moving.status, 409);
  t.match(moving.body, { detail: /alloc-80 is in_transit/, allocations: [{ id: 'alloc-80', state: 'in_transit' }] });
  t.match(await get('pledges/pl-robot-2'), { status: 'open' });
});

t.test('closing a need: no more allocations; cancelAllocations cancels those not yet on the road', async (t) => {
  const { h, coord, post, get } = await coordinator(t);
  await reference(post);
  const part = { svc, need: 'need-2026-11-03-shubra' };
  t.equal((await post('allocations', { ...part, id: 'alloc-1', assignments: [{ pledge: 'pl-882', meals: 100 }] })).status, 201);
  t.equal((await post('allocations', { ...part, id: 'alloc-2', assignments: [{ pledge: 'pl-882', meals: 100 }] })).status, 201);
  t.equal((await post('allocations/alloc-2/handover', { pledge: 'pl-882', step: 'delivered' })).status, 200);
  t.equal((await h.call('POST', '/svc/v1/relief/needs/need-2026-11-03-shubra/close', { token: h.token(['read']), body: {} })).status, 403);

  const closed = await post('needs/need-2026-11-03-shubra/close', { reason: 'school-12 evacuated', cancelAllocations: true });
  t.equal(closed.status, 200, String(closed.body.detail ?? ''));
  valid(t, 'reliefNeedRecord', closed.body, 'the closed need');
  t.match(closed.body, {
    status: 'closed',
    closed: { by: { kind: 'agent' }, reason: 'school-12 evacuated', cancelledAllocations: ['alloc-1'] },
    allocated: { meals: 100 },
    remaining: { meals: 550 },
  });
  t.match(await get('allocations/alloc-1'), { state: 'cancelled' });
  t.match(await get('allocations/alloc-2'), { state: 'in_transit' }, 'what is on the road stays');
  t.match(await get('pledges/pl-882'), { remaining: { meals: 620 } }, 'alloc-1’s 100 meals are back');
  t.equal((await post('allocations/alloc-2/handover', { pledge: 'pl-882', step: 'received' })).status, 200, 'and is handed over');
  const more = await post('allocations', { ...part, assignments: [{ pledge: 'pl-882', meals: 10 }] });
  t.equal(more.status, 409, 'a closed need takes no more');
  t.match(more.body, { type: /conflict$/, detail: /is closed/ });
  t.match((await post('needs/need-2026-11-03-shubra/close')).body, { type: /conflict$/, detail: /already closed/ });
  t.same(
    ((await get('needs?status=closed')).items as { id: string }[]).map((n) => n.id),
    ['need-2026-11-03-shubra'],
  );

  // Closing a fulfilled need (after the handover) keeps its allocations as they are.
  t.equal((await post('needs', { ...ref('need'), id: 'need-small', people: 5 })).status, 201);
  t.equal((await post('allocations', { svc, id: 'alloc-s', need: 'need-small', assignments: [{ pledge: 'pl-882' }] })).status, 201);
  t.equal(
    (await h.call('POST', '/svc/v1/relief/needs/need-small/close', { token: coord })).status,
    422,
    'the body is an object, {} at least',
  );
  const done = await post('needs/need-small/close', {});
  t.match(done.body, { status: 'closed', remaining: { meals: 0 } });
  t.notOk((done.body.closed as Record<string, unknown>).cancelledAllocations, 'nothing cancelled');
  t.match(await get('allocations/alloc-s'), { state: 'allocated' });
});
