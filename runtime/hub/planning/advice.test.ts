/**
 * Advice over a real socket (issue 16 item 1): the reference's example requests answered by the hub and
 * checked against the AdviceResponse schema (the reference's own answers pass it too); the hub's context
 * (inventory, household allergens, mode) changes the answer; `ask` places free text or refuses it; `apply`
 * makes a planned session that a person must still confirm, and an agent needs a mandate for it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { validate } from '../../../schemas/index.js';
import { packageRoot } from '../../config/paths.js';
import { startHub, type TestHub } from '../test-helpers.js';
import { planMandate } from '../testing/scope-table.js';

const EX = join(packageRoot(), '../shared/reference/examples/advice');
const example = (name: string) => JSON.parse(readFileSync(join(EX, `${name}.json`), 'utf8')) as Record<string, unknown>;
type Res = {
  responseId: string;
  status: string;
  safety: { verdict: string; rulesApplied?: string[] };
  options: {
    id: string;
    kind: string;
    recipeIds?: string[];
    coverage?: { have: string[]; missing: string[] };
    evidence: { kind: string; ref: string; source?: { url: string } }[];
    patch?: { ops: { params?: { keepFraction: number } }[] };
    storagePlan?: { method: string; separateComponents?: string[] };
    portionPlan?: { people: { personId: string; grams: number }[] };
    productionPlan?: { menu: { recipeId: string; batches: number; scale: number }[] };
  }[];
  context: { source: string; used: string[] };
};

function valid(t: Test, body: unknown, what: string): void {
  const v = validate.adviceResponse(body);
  t.ok(v.valid, `${what}: a valid AdviceResponse${v.valid ? '' : ` ${JSON.stringify(v.issues.slice(0, 3))}`}`);
}

async function adv(
  h: TestHub,
  token: string,
  intent: string,
  body: unknown,
): Promise<{ status: number; body: Res & Record<string, unknown> }> {
  const r = await h.call('POST', `/svc/v1/advise/${intent}`, { token, body });
  return { status: r.status, body: r.body as Res & Record<string, unknown> };
}

t.test('the reference’s own answers pass the AdviceResponse schema', async (t) => {
  for (const n of ['cook-from', 'feed', 'personalize', 'recover-left-out', 'recover-too-salty', 'store', 'team-plan'])
    valid(t, example(`${n}.response`), n);
  t.notOk(
    validate.adviceResponse({ $kind: 'AdviceResponse', intent: 'store', status: 'answered', safety: {}, options: [], engine: {} }).valid,
    'a response without a verdict fails',
  );
});

t.test('the reference’s example requests, answered by the hub', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const read = h.token(['read']);

  const left = await adv(h, read, 'recover', example('recover-left-out.request'));
  t.equal(left.status, 200);
  valid(t, left.body, 'recover (left out)');
  t.equal(left.body.safety.verdict, 'unsafe_discard', '190 min in the danger zone: discard');
  t.same(left.body.safety.rulesApplied, ['cw.safety.danger_zone_2h']);
  t.equal(left.body.options[0]?.kind, 'discard');
  t.match(left.body.options[0]?.evidence[0]?.source?.url, /fsis\.usda\.gov/, 'the rule cites its source');

  const salty = await adv(h, read, 'recover', example('recover-too-salty.request'));
  valid(t, salty.body, 'recover (too salty)');
  t.equal(salty.body.options[0]?.kind, 'patch_and_resume');
  t.equal(salty.body.options[0]?.patch?.ops[0]?.params?.keepFraction, 0.33, 'three times the salt: keep a third');

  const stored = await adv(h, read, 'store', example('store.request'));
  valid(t, stored.body, 'store');
  const fridge = stored.body.options.find((o) => o.storagePlan?.method === 'fridge');
  t.ok(fridge, 'three days in the fridge is feasible');
  t.same(fridge?.storagePlan?.separateComponents, ['eggs (cook fresh)'], 'egg dishes: cook the eggs fresh');
  t.ok(
    fridge?.evidence.every((e) => e.source?.url),
    'every storage fact cites a source',
  );
  const week = await adv(h, read, 'store', {
    query: { recipeId: 'example-shakshuka', duration: 'P10D', storageAvailable: ['fridge', 'freezer'] },
  });
  t.equal(week.body.status, 'refused', 'ten days: no method keeps an egg dish that long');

  const feed = await adv(h, read, 'feed', { ...example('feed.request'), context: { constraints: { excludeAllergens: ['peanuts'] } } });
  valid(t, feed.body, 'feed');
  const menu = feed.body.options[0]?.productionPlan?.menu ?? [];
  t.ok(menu.length > 0, 'a production plan for 40');
  for (const m of menu) t.ok(m.scale <= 2, `${m.recipeId} stays inside its envelope (${m.scale}× in ${m.batches} batches)`);

  const person = example('personalize.request');
  const pers = await adv(h, read, 'personalize', { ...person, query: { ...(person.query as object), recipeIds: ['example-shakshuka'] } });
  valid(t, pers.body, 'personalize');
  const people = pers.body.options[0]?.portionPlan?.people ?? [];
  t.equal(people.length, 3);
  const dad = people.find((p) => p.personId === 'p1')?.grams ?? 0;
  const sara = people.find((p) => p.personId === 'p3')?.grams ?? 0;
  t.ok(dad > sara, `an adult man (${dad} g) eats more than a nine-year-old (${sara} g)`);

  const cook = await adv(h, read, 'cook_from', example('cook-from.request'));
  t.equal(cook.status, 200);
  valid(t, cook.body, 'cook_from');
  t.equal(cook.body.context.source, 'hub');
  const unknown = await adv(h, read, 'astrology', {});
  t.equal(unknown.status, 404);
  t.match(unknown.body.detail, /cook_from/);
});

t.test('the hub’s inventory and household change the answer', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const token = h.token(['read', 'inventory', 'admin']);
  await h.call('PATCH', '/svc/v1/inventory', {
    token,
    body: {
      upsert: [
        { name: 'Eggs', quantity: 12, unit: 'pcs' },
        { name: 'Crushed tomatoes', id: 'tomato_crushed_canned', quantity: 1, unit: 'kg' },
        { name: 'Red bell pepper', quantity: 2, unit: 'pcs' },
        { name: 'Onion', quantity: 4, unit: 'pcs' },
        { name: 'Olive oil', quantity: 500, unit: 'ml' },
        { name: 'Garlic', quantity: 10, unit: 'pcs' },
      ],
    },
  });
  const r = await adv(h, token, 'cook_from', { query: { servings: 4 } });
  valid(t, r.body, 'cook_from with the inventory');
  const first = r.body.options[0];
  t.same(first?.recipeIds, ['example-shakshuka'], 'the stock makes shakshuka');
  t.ok(first?.coverage?.have.includes('cw.ing.egg_chicken_large'), 'eggs from the inventory');
  t.ok(r.body.context.used.includes('inventory'));
  t.ok(
    first?.evidence.some((e) => e.kind === 'capability'),
    'grounded in the kitchen’s device',
  );

  await h.call('PUT', '/svc/v1/household', { token, body: { excludeAllergens: ['eggs'] } });
  const blocked = await adv(h, token, 'cook_from', { query: { servings: 4 } });
  t.notOk(
    blocked.body.options.some((o) => o.recipeIds?.includes('example-shakshuka')),
    'the household’s egg allergy rules shakshuka out',
  );
});

t.test('ask places free text on an intent, or refuses it clearly', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const token = h.token(['read'], 'agent');
  const left = await h.call('POST', '/svc/v1/ask', {
    token,
    body: { text: 'The raw chicken was left on the counter for 3 hours, can I still cook it?' },
  });
  t.equal(left.status, 200);
  valid(t, left.body, 'ask → recover');
  t.equal((left.body.safety as { verdict: string }).verdict, 'unsafe_discard');
  t.equal((left.body.interpreted as { intent: string }).intent, 'recover');
  const store = await h.call('POST', '/svc/v1/ask', { token, body: { text: 'How can I store shakshuka for three days?' } });
  t.equal((store.body.interpreted as { query: { recipeId: string; duration: string } }).query.duration, 'P3D');
  const feed = await h.call('POST', '/svc/v1/ask', { token, body: { text: 'I need to feed 12 people tonight' } });
  t.equal((feed.body.interpreted as { query: { people: number } }).query.people, 12);
  const none = await h.call('POST', '/svc/v1/ask', { token, body: { text: 'Sing me a song about the sea' } });
  t.equal(none.status, 422);
  t.match(none.body.detail, /could not tell what you want/);
  t.equal((await h.call('POST', '/svc/v1/ask', { body: { text: 'feed 4 people' } })).status, 401, 'a token is needed');
});

t.test('apply makes a planned session; a person still confirms it; an agent needs a mandate', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const person = h.token(['read', 'cook']);
  const agent = h.token(['read', 'cook'], 'agent', 'helper-bot');
  const answer = await adv(h, agent, 'feed', { query: { people: 4 } });
  const option = answer.body.options[0];
  if (!option) throw new Error('no option');
  const noMandate = await h.call('POST', '/svc/v1/advise/feed/apply', {
    token: agent,
    body: { responseId: answer.body.responseId, optionId: option.id },
  });
  t.equal(noMandate.status, 403);
  t.match(noMandate.body.type, /policy-deny$/);
  const forged = { ...planMandate(h, 'helper-bot'), scopes: ['plan_meals', 'order_groceries'] };
  const bad = await h.call('POST', '/svc/v1/advise/feed/apply', {
    token: agent,
    body: { responseId: answer.body.responseId, optionId: option.id, mandate: forged },
  });
  t.equal(bad.status, 403, 'a mandate changed after signing is refused');
  t.equal(bad.body.mandateReason, 'bad_signature');
  const ok = await h.call('POST', '/svc/v1/advise/feed/apply', {
    token: agent,
    body: { responseId: answer.body.responseId, optionId: option.id, mandate: planMandate(h, 'helper-bot') },
  });
  t.equal(ok.status, 201, String(ok.body.detail ?? ''));
  t.equal(ok.body.state, 'planned');
  t.same(
    (ok.body.recipes as { recipeId: string }[]).map((r) => r.recipeId),
    option.recipeIds,
  );
  const start = await h.call('POST', `/svc/v1/sessions/${String(ok.body.id)}/start`, { token: agent });
  t.equal(start.status, 409, 'not confirmed by a person: it cannot start');
  const byPerson = await h.call('POST', '/svc/v1/advise/feed/apply', {
    token: person,
    body: { responseId: answer.body.responseId, optionId: option.id },
  });
  t.equal(byPerson.status, 201, 'a person applies without a mandate');
  const missing = await h.call('POST', '/svc/v1/advise/feed/apply', { token: person, body: { responseId: 'adv-nope', optionId: 'x' } });
  t.equal(missing.status, 404);
  const discard = await adv(h, person, 'recover', example('recover-left-out.request'));
  const refuse = await h.call('POST', '/svc/v1/advise/recover/apply', {
    token: person,
    body: { responseId: discard.body.responseId, optionId: 'discard' },
  });
  t.equal(refuse.status, 409, 'discarding is not a plan to cook');
});
