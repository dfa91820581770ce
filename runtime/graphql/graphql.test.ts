/**
 * The hub's GraphQL over HTTP (`/svc/v1/graphql`), on the whole hub listening on 127.0.0.1: a token is needed
 * (401 problem with the Bearer challenge), each field needs the scope REST needs (refusals carry the problem
 * slug and type in `extensions`), inputs pass the REST schemas, depth and cost limits refuse before anything
 * runs, a session is driven through the same services as REST (REST sees what GraphQL did), and an emergency
 * stop with a token without any cooking scope cuts heat on the simulated rig.
 */
import t from 'tap';
import { FRY_RECIPE, startHub } from '../hub/test-helpers.js';
import { gql } from './test-helpers.js';

const CREATE = `mutation C($input: CreateSessionInput!) { createSession(input: $input) { id state confirmation { requiredRules } } }`;
const input = { recipes: [{ recipeId: FRY_RECIPE }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' };

t.test('a token is needed; each field needs the scope REST needs, refused with the problem in extensions', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const none = await gql(h, '{ sessions { id } }');
  t.equal(none.status, 401);
  t.match(none.headers.get('content-type'), /application\/problem\+json/);
  t.match(none.headers.get('www-authenticate'), /^Bearer realm="hearth"/);
  t.equal(none.body.type, `${h.url}/errors/unauthorized`);
  t.equal((await gql(h, '{ sessions { id } }', { token: 'hth_not-a-real-token' })).status, 401);

  const notifyOnly = h.token(['notify'], 'agent');
  const refused = await gql(h, '{ sessions { id } inventory { items { id } } }', { token: notifyOnly });
  t.equal(refused.status, 200);
  t.equal(refused.errors?.length, 2, 'both fields refused, each with its own error');
  t.same(refused.data, { sessions: null, inventory: null });
  const partial = await gql(h, '{ search(first: 1) { total } sessions { id } }', { token: notifyOnly });
  t.equal(((partial.data?.search as { total: number } | undefined)?.total ?? 0) > 0, true, 'what the token may read still answers');
  t.equal(partial.data?.sessions, null);
  t.match(refused.errors?.[0]?.extensions, {
    slug: 'forbidden',
    status: 403,
    type: `${h.url}/errors/forbidden`,
    requiredScope: ['read'],
  });
  t.match(refused.errors?.[0]?.message, /Query\.sessions needs the scope read/);

  const readOnly = h.token(['read'], 'agent');
  const create = await gql(h, CREATE, { token: readOnly, variables: { input } });
  t.equal(create.errors?.[0]?.extensions?.slug, 'forbidden');
  t.same((await h.call('GET', '/svc/v1/sessions', { token: readOnly })).body.items, [], 'nothing was created');

  // The search needs only a paired token, as the MCP tool.
  const search = await gql(h, '{ search(query: "onions") { total edges { node { id title } } } }', { token: notifyOnly });
  t.notOk(search.errors);
  t.equal((search.data?.search as { edges: { node: { id: string } }[] } | undefined)?.edges[0]?.node.id, FRY_RECIPE);
});

t.test('a session driven over GraphQL is the one REST sees; bad input and unknown ids carry the slug', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const person = h.token(['cook', 'read', 'inventory', 'order:create']);
  const created = await gql(h, CREATE, { token: person, variables: { input } });
  t.notOk(created.errors);
  const s = created.data?.createSession as { id: string; state: string; confirmation: { requiredRules: string[] } };
  t.equal(s.state, 'planned');
  const rest = await h.call('GET', `/svc/v1/sessions/${s.id}`, { token: person });
  t.equal(rest.status, 200);
  t.equal(rest.body.state, 'planned');

  const confirm = await gql(
    h,
    `mutation($id: ID!, $r: [String!]!) { confirmSession(id: $id, acknowledgedRules: $r) { completed session { state } } }`,
    { token: person, variables: { id: s.id, r: s.confirmation.requiredRules } },
  );
  t.same(confirm.data?.confirmSession, { completed: true, session: { state: 'planned' } });

  const noPerson = await gql(h, 'mutation($id: ID!) { startSession(id: $id) { state } }', { token: person, variables: { id: s.id } });
  t.match(noPerson.errors?.[0]?.extensions, { slug: 'presence-required', status: 409, type: `${h.url}/errors/presence-required` });

  const bad = await gql(h, CREATE, { token: person, variables: { input: { ...input, serveAt: 'tonight' } } });
  t.match(bad.errors?.[0]?.extensions, { slug: 'validation-failed', status: 422 });
  t.match(bad.errors?.[0]?.message, /input \/serveAt: must match format "date-time"/);
  const unknown = await gql(h, CREATE, { token: person, variables: { input: { ...input, recipes: [{ recipeId: 'nope' }] } } });
  t.equal(unknown.errors?.[0]?.extensions?.slug, 'unknown-recipe');
  const missing = await gql(h, '{ session(id: "ses-none") { id } }', { token: person });
  t.equal(missing.errors?.[0]?.extensions?.slug, 'not-found');
  t.same(missing.data, { session: null });

  const inv = await gql(
    h,
    'mutation { updateInventory(upsert: [{ name: "Red lentils", quantity: 500, unit: "g" }]) { items { id quantity } } }',
    {
      token: person,
    },
  );
  t.same(inv.data?.updateInventory, { items: [{ id: 'red-lentils', quantity: 500 }] });
  t.same(
    ((await h.call('GET', '/svc/v1/inventory', { token: person })).body.items as { id: string }[]).map((i) => i.id),
    ['red-lentils'],
  );
  const order = await gql(h, 'mutation { createOrderIntent(lines: [{ item: "onions", quantity: 1, unit: "kg" }]) { id state } }', {
    token: person,
  });
  t.equal((order.data?.createOrderIntent as { state: string } | undefined)?.state, 'awaiting_approval');

  const status = await gql(
    h,
    '{ executor { activeExecution { id } humanPresent safety { latched heaters { id power } } } mode { mode } }',
    {
      token: person,
    },
  );
  t.notOk(status.errors);
  t.match(status.data, { executor: { activeExecution: null, humanPresent: false, safety: { latched: false } }, mode: { mode: 'normal' } });
});

t.test('depth and cost limits refuse an operation before anything runs', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const person = h.token(['cook', 'read']);
  const deep = await gql(h, '{ tasks { session { tasks { session { tasks { session { tasks { session { id } } } } } } } } }', {
    token: person,
  });
  t.equal(deep.status, 400);
  t.match(deep.errors?.[0]?.extensions, {
    slug: 'query-too-complex',
    measure: 'depth',
    limit: 8,
    actual: 9,
    type: `${h.url}/errors/query-too-complex`,
  });
  const costly = await gql(
    h,
    `mutation($input: CreateSessionInput!) { createSession(input: $input) { tasks { session { tasks { session { id } } } } } }`,
    { token: person, variables: { input } },
  );
  t.equal(costly.status, 400);
  t.match(costly.errors?.[0]?.extensions, { slug: 'query-too-complex', measure: 'cost' });
  t.same((await h.call('GET', '/svc/v1/sessions', { token: person })).body.items, [], 'the mutation did not run');
});

t.test('emergencyStop with a token without any cooking scope cuts heat on the simulated rig', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const person = h.token(['cook', 'read']);
  await h.presence(true);
  const s = (await gql(h, CREATE, { token: person, variables: { input } })).data?.createSession as {
    id: string;
    confirmation: { requiredRules: string[] };
  };
  await gql(h, 'mutation($id: ID!, $r: [String!]!) { confirmSession(id: $id, acknowledgedRules: $r) { completed } }', {
    token: person,
    variables: { id: s.id, r: s.confirmation.requiredRules },
  });
  const started = await gql(h, 'mutation($id: ID!) { startSession(id: $id) { state } }', { token: person, variables: { id: s.id } });
  t.same(started.data, { startSession: { state: 'running' } });
  await h.clock.advanceAsync(30_000);
  t.ok((h.app.ctx.rig.heaters.get('fryer')?.power ?? 0) > 0, 'the fryer is heating');

  const notifyOnly = h.token(['notify'], 'agent');
  const long = 'x'.repeat(400);
  const stop = await gql(h, 'mutation($r: String) { emergencyStop(reason: $r) { accepted action reason warnings safety { latched } } }', {
    token: notifyOnly,
    variables: { r: long },
  });
  t.notOk(stop.errors, 'a long reason is cut, never a refusal');
  t.match(stop.data?.emergencyStop, { accepted: true, action: 'heat_off_all', safety: { latched: true } });
  t.match((stop.data?.emergencyStop as { warnings: string[] } | undefined)?.warnings[0], /cut to 300/);
  for (const heater of h.app.ctx.rig.heaters.values()) t.equal(heater.power, 0, `${heater.id} is off`);
  await h.clock.advanceAsync(30_000);
  t.equal(h.app.ctx.rig.heaters.get('fryer')?.power, 0, 'heat stays off while latched');
  t.equal(h.hub.sessions.get(s.id).state, 'aborted');
});

t.test('a request without query text is a problem document, not GraphQL JSON', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const token = h.token(['read'], 'agent');
  const auth = { authorization: `Bearer ${token}` };
  const asks: [string, RequestInit][] = [
    ['POST {}', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' }],
    ['POST a numeric query', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"query":7}' }],
    ['GET without ?query', { method: 'GET', headers: auth }],
  ];
  for (const [label, init] of asks) {
    const res = await fetch(`${h.url}/svc/v1/graphql`, init);
    t.equal(res.status, 400, `${label}: 400`);
    t.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, `${label}: a problem document`);
    t.match(((await res.json()) as { type?: string }).type, /\/errors\/bad-request$/, `${label}: bad-request`);
  }
});

t.test('a mutation over GET is 405 and names the method that would do', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const token = h.token(['notify'], 'agent');
  const url = `${h.url}/svc/v1/graphql?query=${encodeURIComponent('mutation { emergencyStop { accepted } }')}`;
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  t.equal(res.status, 405);
  t.equal(res.headers.get('allow'), 'POST');
  t.equal(h.app.ctx.supervisor.status().latched, false, 'nothing ran');
  const query = await fetch(`${h.url}/svc/v1/graphql?query=${encodeURIComponent('{ mode { mode } }')}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  t.equal(query.status, 200, 'a query over GET answers');
  t.equal(query.headers.get('allow'), null);
});
