import t from 'tap';
import { runCli } from '../../test-support/cli.js';
import { executeRequest, KOSHARI, newKey, startTestApp, type TestApp } from '../app/testing.js';

async function post(h: TestApp, url: string, body: unknown, headers: Record<string, string> = {}) {
  return h.app.ctx.http.inject({
    method: 'POST',
    url,
    payload: body as Record<string, unknown>,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

async function startKoshari(h: TestApp, key = newKey(), extra: Record<string, unknown> = {}, headers: Record<string, string> = h.auth) {
  return post(h, '/v1/executions', executeRequest(h.app, KOSHARI, key, extra), { ...headers, 'idempotency-key': key });
}

/** Advance simulated time until `pred` holds (or fail after `maxMs`). */
async function until(h: TestApp, pred: () => boolean, maxMs = 30 * 60_000, stepMs = 5_000) {
  for (let waited = 0; waited <= maxMs; waited += stepMs) {
    if (pred()) return;
    await h.clock.advanceAsync(stepMs);
  }
  throw new Error('condition never held');
}

t.test('tokens: start needs cook, status needs read, open routes need none', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  const none = await startKoshari(h, newKey(), {}, {});
  t.equal(none.statusCode, 401);
  t.equal(
    none.headers['www-authenticate'],
    `Bearer realm="hearth", resource_metadata="${h.app.baseUrl}/.well-known/oauth-protected-resource"`,
    'the challenge points at the RFC 9728 metadata',
  );
  t.match(none.json(), { type: `${h.app.baseUrl}/errors/unauthorized`, status: 401 });
  const reader = h.app.ctx.tokens.create({ scopes: ['read'] }).token;
  const wrong = await startKoshari(h, newKey(), {}, { authorization: `Bearer ${reader}` });
  t.equal(wrong.statusCode, 403);
  t.match(wrong.headers['www-authenticate'], /error="insufficient_scope", scope="cook"/);
  t.equal((await h.app.ctx.http.inject({ method: 'GET', url: '/v1/executions/ex-nope' })).statusCode, 401);
  const cookOnly = h.app.ctx.tokens.create({ scopes: ['cook'] }).token;
  t.equal(
    (await h.app.ctx.http.inject({ method: 'GET', url: '/v1/executions/ex-nope', headers: { authorization: `Bearer ${cookOnly}` } }))
      .statusCode,
    403,
  );
  t.equal((await h.app.ctx.http.inject({ method: 'GET', url: '/v1/executions/ex-nope', headers: h.auth })).statusCode, 404);
  for (const url of ['/v1/safety-limits', '/v1/capabilities', '/v1/recalls'])
    t.equal((await h.app.ctx.http.inject({ method: 'GET', url })).statusCode, 200, url);
  const limits = (await h.app.ctx.http.inject({ method: 'GET', url: '/v1/safety-limits' })).json();
  t.equal(limits.kind, 'SafetyLimits');
  t.ok(
    limits.limits.some((l: { kind: string; appliesTo?: { medium?: string } }) => l.kind === 'max_temp' && l.appliesTo?.medium === 'oil'),
  );
  t.type(limits.disclaimer, 'string');
  t.same((await h.app.ctx.http.inject({ method: 'GET', url: '/v1/capabilities' })).json(), h.app.ctx.device.capabilities);
});

t.test('a token revoked by `hearth token revoke` (another process) is refused at the next status read', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  h.app.ctx.rig.sim?.setPresence(true);
  const started = await startKoshari(h);
  t.equal(started.statusCode, 202, started.body);
  const url = `/v1/executions/${started.json().id}`;
  const tablet = { authorization: `Bearer ${h.app.ctx.tokens.create({ name: 'tablet', scopes: ['read'] }).token}` };
  const read = async (headers: Record<string, string>) => (await h.app.ctx.http.inject({ method: 'GET', url, headers })).statusCode;
  t.equal(await read(tablet), 200);
  t.equal(await read(tablet), 200);
  const revoked = await runCli(['token', 'revoke', 'tablet', '--data-dir', h.dataDir]);
  t.equal(revoked.code, 0, revoked.stderr);
  t.equal(await read(tablet), 401, 'the very next read is refused');
  t.equal(await read(h.auth), 200, 'other tokens still read');
  const unknown = await h.app.ctx.http.inject({ method: 'GET', url: '/v1/executions/ex-nope', headers: h.auth });
  t.equal(unknown.statusCode, 404);
  t.match(unknown.headers['content-type'], /^application\/problem\+json/);
  t.match(unknown.json(), { type: `${h.app.baseUrl}/errors/not-found`, status: 404, detail: 'no execution ex-nope on this device' });
});

t.test('a refusal is a normal 202 answer; nobody present refuses heat', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  const res = await startKoshari(h);
  t.equal(res.statusCode, 202);
  const s = res.json();
  t.equal(s.kind, 'ExecutionStatus');
  t.equal(s.state, 'refused');
  t.equal(s.refusal.reason, 'needs_human_present');
  t.equal(s.refusal.node, 'n7');
  t.equal(res.headers.etag, `"${s.seq}"`);
  t.equal(res.headers.location, `/v1/executions/${s.id}`);
  const log = await h.app.ctx.http.inject({ method: 'GET', url: `/v1/executions/${s.id}/log`, headers: h.auth });
  t.equal(log.statusCode, 200);
  t.match(log.json(), { kind: 'ExecutionLog', outcome: 'refused', privacy: { personalData: 'none' }, steps: [] });
  t.notMatch(log.body, /household:test/, 'the log carries no requester');
  const events: string[] = [];
  h.app.ctx.bus.on('execution.state', (e) => events.push(e.state));
  h.app.ctx.rig.sim?.setPresence(true);
  const ok = (await startKoshari(h)).json();
  t.equal(ok.state, 'preparing');
  t.same(events, ['accepted', 'preparing']);
});

t.test('start checks in order', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  h.app.ctx.rig.sim?.setPresence(true);
  const reason = async (extra: Record<string, unknown>, headers: Record<string, string> = h.auth) =>
    (await startKoshari(h, newKey(), extra, headers)).json().refusal?.reason;
  t.equal(await reason({ core: '0.3.0' }), 'unsupported_version');
  t.equal(await reason({ core: '0.3.0', recipeHash: `sha256:${'0'.repeat(64)}` }), 'unsupported_version', 'version first');
  const unknown = await startKoshari(h, newKey(), { recipe: 'no-such-recipe' });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().type, `${h.app.baseUrl}/errors/unknown-recipe`);
  t.equal(await reason({ recipeHash: `sha256:${'0'.repeat(64)}` }), 'recipe_hash_mismatch');
  t.equal(
    await reason({ recipe: `https://example.org/catalog#${KOSHARI}`, recipeHash: `sha256:${'1'.repeat(64)}` }),
    'recipe_hash_mismatch',
    'catalog refs resolve to the id',
  );
  const agent = h.app.ctx.tokens.create({ scopes: ['cook'], kind: 'agent' }).token;
  t.equal(await reason({}, { authorization: `Bearer ${agent}` }), 'not_authorized');
  const mandate = { principal: 'p1', agent: 'a1', scopes: ['plan_meals'], expires: '2099-01-01T00:00:00Z' };
  t.equal(await reason({ mandate }, { authorization: `Bearer ${agent}` }), 'mandate_scope');
  t.equal(
    await reason({ mandate: { ...mandate, scopes: ['start_cooking'], expires: '2020-01-01T00:00:00Z' } }),
    'mandate_scope',
    'expired',
  );
  t.equal(await reason({ allergenBlocks: ['CEREALS_GLUTEN'] }), 'allergen_block');
  t.equal(
    await reason({ mandate: { ...mandate, scopes: ['plan_meals'] }, allergenBlocks: ['cereals_gluten'] }),
    'mandate_scope',
    'mandate before allergens',
  );
  h.app.ctx.executor.recalls.add({
    id: 'rc-1',
    issuedAt: '2026-10-04T10:00:00Z',
    action: 'block',
    targets: [{ ref: `cw:example.org:${KOSHARI}`, allRevisions: true }],
  });
  t.equal(await reason({ allergenBlocks: ['cereals_gluten'] }), 'recipe_recalled', 'recall before allergens');
  t.equal(await reason({ recipeHash: `sha256:${'0'.repeat(64)}` }), 'recipe_hash_mismatch', 'hash before recall');
  const recalls = await h.app.ctx.http.inject({ method: 'GET', url: '/v1/recalls?since=2026-01-01T00:00:00Z' });
  t.same(
    recalls.json().map((r: { id: string }) => r.id),
    ['rc-1'],
  );
  t.same((await h.app.ctx.http.inject({ method: 'GET', url: '/v1/recalls?since=2026-12-01T00:00:00Z' })).json(), []);
  t.equal((await h.app.ctx.http.inject({ method: 'GET', url: '/v1/recalls?since=yesterday' })).statusCode, 400);
});

t.test('idempotency on start: replay, reuse, missing, mismatch', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  const key = newKey();
  const first = await startKoshari(h, key);
  const again = await startKoshari(h, key);
  t.equal(again.statusCode, 202);
  t.equal(again.body, first.body, 'replayed byte for byte');
  t.equal(again.headers['idempotent-replayed'], 'true');
  t.equal(again.headers.etag, first.headers.etag);
  const reused = await post(
    h,
    '/v1/executions',
    { ...executeRequest(h.app, KOSHARI, key), servings: 4 },
    { ...h.auth, 'idempotency-key': key },
  );
  t.equal(reused.statusCode, 422);
  t.equal(reused.json().type, `${h.app.baseUrl}/errors/idempotency-key-reused`);
  const missing = await post(h, '/v1/executions', executeRequest(h.app, KOSHARI, newKey()), h.auth);
  t.equal(missing.statusCode, 400);
  t.equal(missing.json().type, `${h.app.baseUrl}/errors/idempotency-key-missing`);
  const k2 = newKey();
  const mismatch = await post(h, '/v1/executions', executeRequest(h.app, KOSHARI, newKey()), { ...h.auth, 'idempotency-key': k2 });
  t.equal(mismatch.statusCode, 422);
  t.equal(mismatch.json().errors[0].pointer, '/idempotencyKey');
  // A different principal has its own key space.
  const other = h.app.ctx.tokens.create({ scopes: ['cook'] }).token;
  const fresh = await startKoshari(h, key, {}, { authorization: `Bearer ${other}` });
  t.not(fresh.json().id, first.json().id);
});

t.test('status ETag, If-None-Match, resume preconditions, stop, log', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  const sim = h.app.ctx.rig.sim;
  sim?.setPresence(true);
  const started = (await startKoshari(h)).json();
  const id = started.id as string;
  const busy = (await startKoshari(h)).json();
  t.equal(busy.refusal.reason, 'busy');
  const get = () => h.app.ctx.http.inject({ method: 'GET', url: `/v1/executions/${id}`, headers: h.auth });
  await until(h, () => (h.app.ctx.rig.heaters.get('pot')?.power ?? 0) > 0);
  const s1 = await get();
  t.equal(s1.json().state, 'running');
  t.equal(s1.headers.etag, `"${s1.json().seq}"`);
  t.match(s1.json().step, { node: 'n1', op: 'cw.op.boil', verifiedBy: 'sensor' });
  t.match(s1.json().step.readings[0], { sensor: 'cw.sense.liquid_temp', unit: 'degC' });
  t.type(s1.json().eta, 'string');
  t.equal(
    (
      await h.app.ctx.http.inject({
        method: 'GET',
        url: `/v1/executions/${id}`,
        headers: { ...h.auth, 'if-none-match': s1.headers.etag as string },
      })
    ).statusCode,
    304,
  );
  t.equal(
    (await h.app.ctx.http.inject({ method: 'GET', url: `/v1/executions/${id}/log`, headers: h.auth })).statusCode,
    404,
    'no log before the end',
  );
  const resume = (headers: Record<string, string>) =>
    post(h, `/v1/executions/${id}/resume`, undefined, { ...h.auth, 'idempotency-key': newKey(), ...headers });
  t.equal((await resume({})).statusCode, 428);
  t.equal((await resume({ 'if-match': '"999999"' })).statusCode, 412);
  const conflict = await resume({ 'if-match': s1.headers.etag as string });
  t.equal(conflict.statusCode, 409, 'running cannot resume');
  t.equal(conflict.json().type, `${h.app.baseUrl}/errors/conflict`);

  const heatEvents: number[] = [];
  h.app.ctx.bus.on('heater', (e) => heatEvents.push(e.power));
  const stop = await h.app.ctx.http.inject({ method: 'POST', url: `/v1/executions/${id}/stop` });
  t.equal(stop.statusCode, 202, 'stop needs no token, key or If-Match');
  t.equal(stop.json().state, 'stopped');
  for (const heater of h.app.ctx.rig.heaters.values()) t.equal(heater.power, 0, `${heater.id} off when the answer arrives`);
  t.same(heatEvents, [0]);
  const again = await h.app.ctx.http.inject({
    method: 'POST',
    url: `/v1/executions/${id}/stop`,
    headers: { 'content-type': 'application/json' },
    payload: '{not json',
  });
  t.equal(again.statusCode, 202, 'stop is idempotent and ignores a broken body');
  t.equal(again.json().seq, stop.json().seq);
  const log = (await h.app.ctx.http.inject({ method: 'GET', url: `/v1/executions/${id}/log`, headers: h.auth })).json();
  t.equal(log.outcome, 'aborted_safe');
  t.match(log.humanInterventions, [{ kind: 'stop' }]);
  t.match(log.steps, [{ node: 'n1', verifiedBy: 'sensor', deviation: { kind: 'other' } }]);
  t.equal((await h.app.ctx.http.inject({ method: 'POST', url: '/v1/executions/ex-unknown/stop' })).statusCode, 404);
  const after = await startKoshari(h);
  t.equal(after.json().state, 'preparing', 'not busy once stopped');
});

t.test('incidents', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  const doc = {
    core: '0.2.0',
    kind: 'IncidentReport',
    id: 'inc-0001',
    date: '2026-11-01',
    category: 'burn',
    severity: 'low',
    description: 'oil spat',
  };
  const key = newKey();
  const ok = await post(h, '/v1/incidents', doc, { 'idempotency-key': key });
  t.equal(ok.statusCode, 202);
  t.match(ok.json(), { id: 'inc-0001', received: 'stored' });
  t.equal((await post(h, '/v1/incidents', doc, { 'idempotency-key': newKey() })).json().received, 'duplicate');
  t.equal((await post(h, '/v1/incidents', doc, {})).statusCode, 400);
  const bad = await post(h, '/v1/incidents', { ...doc, date: '1 Nov', name: 'Alice' }, { 'idempotency-key': newKey() });
  t.equal(bad.statusCode, 422);
  t.same(
    bad
      .json()
      .errors.map((e: { pointer: string }) => e.pointer)
      .sort(),
    ['/date', '/name'],
  );
});
