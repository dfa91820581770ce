/**
 * Relief on a coordinator hub over a real socket, with the reference's relief examples as inputs: a need, two
 * pledges and the reference allocation go in and come back as records that validate against
 * schemas/json/relief.schema.json; the need's remaining meals go down and it is fulfilled when covered; refusals
 * for an allergen the need avoids, a dietary requirement not met, too many meals (of the need, of a pledge) with
 * nothing changed; the handover (delivered, then received); a hub that is not a coordinator answers
 * not-coordinator; every relief event validates against its schema in schemas/events.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import t, { type Test } from 'tap';
import { type SchemaName, validate } from '../../../schemas/index.js';
import { packageRoot } from '../../config/paths.js';
import type { BusEvents } from '../../events/bus.js';
import { buildCloudEvent, shapeOf } from '../../events/cloudevent.js';
import { startHub, type TestHub } from '../test-helpers.js';

const REF = join(packageRoot(), '../shared/reference/examples/relief');
const ref = (f: string) => JSON.parse(readFileSync(join(REF, `${f}.json`), 'utf8')) as Record<string, unknown>;

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const formatsExport = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = typeof formatsExport.default === 'function' ? formatsExport.default : formatsExport;
const EVENTS = fileURLToPath(new URL('../../../schemas/events/', import.meta.url));
const events = addFormats(new Ajv2020({ allErrors: true, strict: true }));
for (const f of readdirSync(EVENTS)) events.addSchema(JSON.parse(readFileSync(join(EVENTS, f), 'utf8')) as object);

function valid(t: Test, name: SchemaName, body: unknown, label: string): void {
  const r = validate[name](body);
  t.ok(r.valid, `${label}: a valid ${name}${r.valid ? '' : ` ${JSON.stringify(r.issues.slice(0, 3))}`}`);
}

async function coordinator(t: Test): Promise<{ h: TestHub; coord: string; reader: string; seen: BusEvents['relief'][] }> {
  const h = await startHub({ relief: true });
  t.teardown(() => h.close());
  const seen: BusEvents['relief'][] = [];
  h.app.ctx.bus.on('relief', (e) => seen.push(e));
  return { h, coord: h.token(['read', 'relief'], 'agent', 'relief coordinator'), reader: h.token(['read'], 'agent', 'reader'), seen };
}

const svc = '0.2.0';
const window = { from: '2026-11-03T11:00:00+02:00', to: '2026-11-03T14:00:00+02:00' };
const early = { from: '2026-11-03T06:00:00+02:00', to: '2026-11-03T10:00:00+02:00' };
const food = (id: string, items: unknown[], extra: Record<string, unknown> = {}) => ({
  svc,
  id,
  from: 'did:web:donor.example',
  kind: 'food',
  items,
  available: early,
  ...extra,
});
const kg = (value: number) => ({ value, unit: 'kg' });

t.test('the reference need, pledges and allocation: records, remaining meals, fulfilment, handover, events', async (t) => {
  const { h, coord, reader, seen } = await coordinator(t);
  for (const f of ['need', 'pledge-robot', 'pledge-surplus', 'allocation', 'program', 'impact'] as const) {
    const name = (
      {
        need: 'reliefNeed',
        'pledge-robot': 'reliefPledge',
        'pledge-surplus': 'reliefPledge',
        allocation: 'reliefAllocation',
        program: 'reliefProgram',
        impact: 'reliefImpact',
      } as const
    )[f];
    valid(t, name, ref(f), `reference ${f}.json`);
  }

  const need = await h.call('POST', '/svc/v1/relief/needs', { token: coord, body: ref('need') });
  t.equal(need.status, 201, String(need.body.detail ?? ''));
  t.equal(need.headers.get('location'), '/svc/v1/relief/needs/need-2026-11-03-shubra');
  valid(t, 'reliefNeedRecord', need.body, 'the posted need');
  t.match(need.body, { status: 'open', mealsNeeded: 650, allocated: { meals: 0 }, remaining: { meals: 650, people: 650 } });
  t.equal((await h.call('POST', '/svc/v1/relief/needs', { token: coord, body: ref('need') })).status, 409, 'posted twice: 409');
  const denied = await h.call('POST', '/svc/v1/relief/needs', { token: reader, body: ref('need') });
  t.equal(denied.status, 403, 'read alone cannot post');
  t.match(denied.body.type, /\/errors\/forbidden$/);
  const bad = await h.call('POST', '/svc/v1/relief/needs', { token: coord, body: { ...ref('need'), id: 'need-bad', people: 0 } });
  t.equal(bad.status, 422);
  t.match(bad.headers.get('content-type'), /application\/problem\+json/);
  t.match(bad.body, { type: /\/errors\/validation-failed$/, errors: [{ in: 'body', pointer: '/people' }] });

  const robot = await h.call('POST', '/svc/v1/relief/pledges', { token: coord, body: ref('pledge-robot') });
  t.equal(robot.status, 201, String(robot.body.detail ?? ''));
  valid(t, 'reliefPledgeRecord', robot.body, 'the robot pledge');
  t.match(robot.body, { status: 'open', remaining: { meals: 720 } }, '180 meals an hour, 08:00-12:00');
  const surplus = await h.call('POST', '/svc/v1/relief/pledges', { token: coord, body: ref('pledge-surplus') });
  t.equal(surplus.status, 201);
  valid(t, 'reliefPledgeRecord', surplus.body, 'the surplus pledge');
  t.same(surplus.body.remaining, {
    items: [
      { key: 'cw.ing.tomato', qty: kg(120) },
      { key: 'cw.ing.lentils_red', qty: kg(200) },
    ],
  });

  // The reference allocation: tomatoes and lentils (plain produce: halal, no peanuts) and the robot's meals.
  const alloc = await h.call('POST', '/svc/v1/relief/allocations', { token: coord, body: ref('allocation') });
  t.equal(alloc.status, 201, String(alloc.body.detail ?? ''));
  valid(t, 'reliefAllocationRecord', alloc.body, 'the allocation');
  t.match(alloc.body, { id: 'alloc-77', state: 'allocated', coverage: { meals: 650, pct: 100 } });
  t.same(alloc.body.menuCheck, { held: [], notHeld: ['ec-160'] }, 'the menu recipe is not on this hub: listed, not checked');
  t.match(alloc.body.assignments, [
    { pledge: 'pl-881', items: [{ qty: kg(120) }, { qty: kg(200) }] },
    { pledge: 'pl-882', meals: 650 },
  ]);
  const after = await h.call('GET', '/svc/v1/relief/needs/need-2026-11-03-shubra', { token: reader });
  t.match(after.body, { status: 'fulfilled', allocated: { meals: 650 }, remaining: { meals: 0, people: 0 }, allocations: ['alloc-77'] });
  t.match((await h.call('GET', '/svc/v1/relief/pledges/pl-882', { token: reader })).body, { status: 'open', remaining: { meals: 70 } });
  t.match((await h.call('GET', '/svc/v1/relief/pledges/pl-881', { token: reader })).body, { status: 'allocated' });
  t.same(((await h.call('GET', '/svc/v1/relief/needs?status=open', { token: reader })).body.items as unknown[]).length, 0);
  t.same(
    ((await h.call('GET', '/svc/v1/relief/needs?status=fulfilled', { token: reader })).body.items as { id: string }[]).map((n) => n.id),
    ['need-2026-11-03-shubra'],
  );
  const more = await h.call('POST', '/svc/v1/relief/allocations', {
    token: coord,
    body: { svc, need: 'need-2026-11-03-shubra', assignments: [{ pledge: 'pl-882', meals: 10 }] },
  });
  t.equal(more.status, 409, 'a fulfilled need takes no more');
  t.match(more.body, { type: /\/errors\/over-allocation$/, remaining: { meals: 0 } });

  // Handover: the receiving side cannot receive what was not delivered; then delivered, received, per pledge.
  const ho = (pledge: string, step: string) =>
    h.call('POST', '/svc/v1/relief/allocations/alloc-77/handover', { token: coord, body: { pledge, step, note: 'school-12 gate' } });
  t.equal((await ho('pl-881', 'received')).status, 409, 'received before delivered');
  const d1 = await ho('pl-881', 'delivered');
  t.equal(d1.status, 200);
  t.match(d1.body, { state: 'in_transit', handovers: [{ pledge: 'pl-881', delivered: { by: { kind: 'agent' } } }, { pledge: 'pl-882' }] });
  t.equal((await ho('pl-881', 'delivered')).status, 409, 'delivered twice');
  await ho('pl-881', 'received');
  await ho('pl-882', 'delivered');
  const done = await ho('pl-882', 'received');
  t.equal(done.body.state, 'handed_over');
  valid(t, 'reliefAllocationRecord', done.body, 'the handed-over allocation');
  t.equal(
    (await h.call('POST', '/svc/v1/relief/allocations/alloc-77/handover', { token: reader, body: { pledge: 'pl-881', step: 'received' } }))
      .status,
    403,
  );
  t.same(
    ((await h.call('GET', '/svc/v1/relief/allocations?need=need-2026-11-03-shubra', { token: reader })).body.items as { id: string }[]).map(
      (a) => a.id,
    ),
    ['alloc-77'],
  );

  // Every relief event, as the CloudEvent every transport sends, validates against its schema.
  t.same([...new Set(seen.map((e) => e.kind))].sort(), ['allocation', 'handover', 'need', 'pledge']);
  t.equal(seen.filter((e) => e.kind === 'handover').length, 4);
  for (const e of seen) {
    const ce = buildCloudEvent(shapeOf('relief', e), { id: `ev-${e.kind}`, seq: 1, kitchenId: 'k1', source: 'urn:test' });
    const check = events.getSchema(`https://schemas.hearth.dev/svc/0.2/events/${ce.type}.schema.json`);
    t.ok(check?.(ce), `${ce.type} (${e.status}) validates${check?.errors ? ` ${JSON.stringify(check.errors)}` : ''}`);
  }
});

t.test('refusals: allergen, dietary requirement, too many meals; nothing changes', async (t) => {
  const { h, coord, reader } = await coordinator(t);
  const post = (path: string, body: unknown) => h.call('POST', `/svc/v1/relief/${path}`, { token: coord, body });
  const need = {
    svc,
    id: 'need-2',
    program: 'prog-x',
    place: { country: 'EG' },
    window,
    people: 100,
    dietary: ['halal'],
    allergensToAvoid: ['peanuts'],
  };
  t.equal((await post('needs', need)).status, 201);
  const robot = { ...ref('pledge-robot'), id: 'pl-robot', capacity: { mealsPerHour: 10, hours: ['06:00-10:00'] } }; // 40 meals
  t.equal((await post('pledges', robot)).status, 201);
  const pledges = [
    food('pl-peanut', [{ ingredientId: 'cw.ing.peanut_butter', qty: kg(5) }]),
    {
      svc,
      id: 'pl-meals-nuts',
      from: 'did:web:caterer.example',
      kind: 'meals',
      portions: 50,
      allergens: ['peanut'],
      dietary: ['halal'],
      available: early,
    },
    food('pl-lamb', [{ ingredientId: 'cw.ing.lamb_shoulder', qty: kg(20) }]),
    food('pl-lamb-halal', [{ ingredientId: 'cw.ing.lamb_shoulder', qty: kg(20), dietary: ['halal'] }]),
    food('pl-rice', [{ ingredientId: 'cw.ing.rice_basmati', qty: kg(30), useBy: '2026-11-03T10:00:00+02:00' }]),
    {
      svc,
      id: 'pl-meals',
      from: 'did:web:caterer.example',
      kind: 'meals',
      portions: 50,
      allergens: [],
      dietary: ['halal'],
      available: early,
    },
  ];
  for (const p of pledges) t.equal((await post('pledges', p)).status, 201, `pledge ${p.id}`);

  const allocate = (assignments: unknown[], extra: Record<string, unknown> = {}) =>
    post('allocations', { svc, need: 'need-2', assignments, ...extra });
  const peanut = await allocate([{ pledge: 'pl-peanut' }, { pledge: 'pl-robot' }]);
  t.equal(peanut.status, 422);
  t.match(peanut.body, {
    type: /\/errors\/relief-mismatch$/,
    reason: 'allergen',
    pledge: 'pl-peanut',
    allergens: ['peanuts'],
    items: ['cw.ing.peanut_butter'],
  });
  const declared = await allocate([{ pledge: 'pl-meals-nuts' }]);
  t.match(
    declared.body,
    { type: /relief-mismatch$/, reason: 'allergen', allergens: ['peanuts'] },
    'a declared allergen (peanut = peanuts)',
  );
  const lamb = await allocate([{ pledge: 'pl-lamb' }, { pledge: 'pl-robot' }]);
  t.equal(lamb.status, 422);
  t.match(lamb.body, {
    type: /relief-mismatch$/,
    reason: 'dietary',
    dietary: 'halal',
    items: ['cw.ing.lamb_shoulder'],
    breakers: ['lamb'],
  });
  const late = await allocate([{ pledge: 'pl-rice' }, { pledge: 'pl-robot' }]);
  t.match(late.body, { type: /relief-mismatch$/, reason: 'window' }, 'rice to be used before the window opens');
  const tooMany = await allocate([{ pledge: 'pl-robot' }], { coverage: { meals: 101 } });
  t.equal(tooMany.status, 409);
  t.match(tooMany.body, { type: /\/errors\/over-allocation$/, remaining: { meals: 100, people: 100 } });
  const overPledge = await allocate([{ pledge: 'pl-robot', meals: 41 }]);
  t.match(overPledge.body, { type: /over-allocation$/, pledge: 'pl-robot', pledgeRemaining: { meals: 40 } });
  const overItem = await allocate([
    { pledge: 'pl-lamb-halal', items: [{ ingredientId: 'cw.ing.lamb_shoulder', qty: kg(21) }] },
    { pledge: 'pl-robot' },
  ]);
  t.match(overItem.body, { type: /over-allocation$/, pledge: 'pl-lamb-halal' }, 'more lamb than pledged');
  const rawOnly = await allocate([{ pledge: 'pl-lamb-halal' }]);
  t.match(rawOnly.body, { type: /over-allocation$/, detail: /provide no meals/ }, 'raw food alone is no meal');
  const short = await allocate([{ pledge: 'pl-robot' }], { coverage: { meals: 60 } });
  t.match(short.body, { type: /over-allocation$/, provided: 40 }, 'more meals than the pledges provide');
  t.match((await h.call('GET', '/svc/v1/relief/needs/need-2', { token: reader })).body, {
    status: 'open',
    remaining: { meals: 100 },
    allocations: [],
  });
  t.match((await h.call('GET', '/svc/v1/relief/pledges/pl-robot', { token: reader })).body, { remaining: { meals: 40 }, allocations: [] });
  t.same((await h.call('GET', '/svc/v1/relief/allocations', { token: reader })).body.items, [], 'nothing was allocated');

  // What meets the need: halal-claimed lamb cooked by the robot (40 meals), then 50 of the 60 meals still lacking.
  const first = await allocate([
    { pledge: 'pl-lamb-halal', items: [{ ingredientId: 'cw.ing.lamb_shoulder', qty: kg(15) }] },
    { pledge: 'pl-robot' },
  ]);
  t.equal(first.status, 201, String(first.body.detail ?? ''));
  t.match(first.body, { coverage: { meals: 40, pct: 40 } });
  t.match((await h.call('GET', '/svc/v1/relief/needs/need-2', { token: reader })).body, {
    status: 'open',
    remaining: { meals: 60, people: 60 },
  });
  t.match((await h.call('GET', '/svc/v1/relief/pledges/pl-lamb-halal', { token: reader })).body, {
    status: 'open',
    remaining: { items: [{ qty: kg(5) }] },
  });
  t.match((await h.call('GET', '/svc/v1/relief/pledges/pl-robot', { token: reader })).body, {
    status: 'allocated',
    remaining: { meals: 0 },
  });
  const second = await allocate([{ pledge: 'pl-meals' }]);
  t.match(second.body, { coverage: { meals: 50 } });
  t.match((await h.call('GET', '/svc/v1/relief/needs/need-2', { token: reader })).body, {
    status: 'open',
    remaining: { meals: 10, people: 10 },
  });
  const robotAgain = await allocate([{ pledge: 'pl-robot' }]);
  t.match(robotAgain.body, { type: /over-allocation$/ }, 'the robot has no meals left');
});

t.test('the production menu: recipes the hub holds are checked against the need', async (t) => {
  const { h, coord, reader } = await coordinator(t);
  const post = (path: string, body: unknown) => h.call('POST', `/svc/v1/relief/${path}`, { token: coord, body });
  const need = (id: string, extra: Record<string, unknown>) => ({
    svc,
    id,
    program: 'prog-x',
    place: { country: 'EG' },
    window,
    people: 10,
    ...extra,
  });
  t.equal((await post('needs', need('need-gf', { allergensToAvoid: ['gluten'] }))).status, 201);
  t.equal((await post('needs', need('need-vegan', { dietary: ['vegan'] }))).status, 201);
  t.equal((await post('needs', need('need-halal', { dietary: ['halal'], allergensToAvoid: ['peanuts'] }))).status, 201);
  for (const id of ['pl-a', 'pl-b', 'pl-c']) t.equal((await post('pledges', { ...ref('pledge-robot'), id, available: early })).status, 201);
  const cook = (needId: string, pledge: string, recipeId: string) =>
    post('allocations', { svc, need: needId, assignments: [{ pledge }], production: [{ menu: [{ recipeId, servings: 10 }] }] });

  const gluten = await cook('need-gf', 'pl-a', 'example-koshari');
  t.equal(gluten.status, 422);
  t.match(gluten.body, { type: /relief-mismatch$/, reason: 'allergen', recipe: 'example-koshari', allergens: ['cereals_gluten'] });
  const vegan = await cook('need-vegan', 'pl-a', 'example-shakshuka');
  t.match(
    vegan.body,
    { type: /relief-mismatch$/, reason: 'dietary', recipe: 'example-shakshuka', dietary: 'vegan' },
    'shakshuka claims vegetarian only',
  );
  t.match((await h.call('GET', '/svc/v1/relief/pledges/pl-a', { token: reader })).body, { remaining: { meals: 720 } }, 'nothing taken');
  const ok = await cook('need-vegan', 'pl-a', 'example-koshari');
  t.equal(ok.status, 201, String(ok.body.detail ?? ''));
  t.same(ok.body.menuCheck, { held: ['example-koshari'], notHeld: [] });
  const halal = await cook('need-halal', 'pl-b', 'example-shakshuka');
  t.equal(halal.status, 201, 'shakshuka claims halal and has no peanuts');
  valid(t, 'reliefAllocationRecord', halal.body, 'an allocation with its menu check');
});

t.test('a hub that is not a coordinator answers not-coordinator, after the token and scope checks', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const coord = h.token(['read', 'relief'], 'agent');
  for (const [method, path, body] of [
    ['GET', '/svc/v1/relief/needs', undefined],
    ['POST', '/svc/v1/relief/needs', ref('need')],
    ['POST', '/svc/v1/relief/pledges', ref('pledge-robot')],
    ['POST', '/svc/v1/relief/allocations', ref('allocation')],
    ['GET', '/svc/v1/relief/allocations/alloc-77', undefined],
  ] as const) {
    const r = await h.call(method, path, { token: coord, ...(body ? { body } : {}) });
    t.equal(r.status, 409, `${method} ${path}`);
    t.match(r.body, { type: /\/errors\/not-coordinator$/, detail: /--relief-coordinator/ });
  }
  t.equal((await h.call('GET', '/svc/v1/relief/needs')).status, 401);
  t.equal((await h.call('POST', '/svc/v1/relief/needs', { token: h.token(['read']), body: ref('need') })).status, 403);
});
