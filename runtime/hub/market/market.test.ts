/**
 * The hub's market over real HTTP and MCP, with the reference's market examples (a grocer's offer feed, the
 * grocer and a robot maker) plus a rental feed of the robot maker: search finds the offer, a quote request
 * goes to the providers that offer its items and no others, every quote awaits approval, an agent can turn a
 * quote into an order but not approve it (403 `not-human-approver`), a person can, and a mandate with a lower
 * cap refuses the order (403 `policy-deny`, `over_cap`). Events go out on the hub's bus.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { generateKeyFile, publicRecord } from '../../../core/keys.js';
import { signDocument } from '../../../core/signature.js';
import { validate } from '../../../schemas/index.js';
import type { BusEvents } from '../../events/bus.js';
import { startHub, type TestHub } from '../test-helpers.js';
import type { QuoteRequestRecord } from './market.js';

const REFERENCE = '../shared/reference/examples/market';
const GROCER = 'did:web:greengrocer.example';
const ROBOTS = 'did:web:robots.example';

/** The reference's three market documents and a rental feed of the robot maker. */
function marketDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-market-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(REFERENCE, dir, { recursive: true });
  const feed = {
    $kind: 'OfferFeed',
    svc: '0.2.0',
    provider: ROBOTS,
    offers: [
      {
        id: 'rb-fryer-rental-week',
        type: 'rental',
        title: { en: 'Fryer robot, one week' },
        deviceClass: 'fryer_robot',
        pricing: { model: 'per_unit', price: { amount: '40.00', currency: 'USD' } },
        fulfillment: ['delivery'],
      },
    ],
  };
  writeFileSync(join(dir, 'robots-feed.json'), JSON.stringify(feed));
  return dir;
}

async function mcp(h: TestHub, token: string): Promise<Client> {
  const client = new Client({ name: 'market-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

t.test('search finds the offer, over REST and MCP, with its filters', async (t) => {
  const h = await startHub({ market: marketDir() });
  t.teardown(() => h.close());
  const read = h.token(['read']);
  const ids = async (q: string) => {
    const r = await h.call('GET', `/svc/v1/offers${q}`, { token: read });
    t.equal(r.status, 200, q);
    return (r.body.items as { id: string }[]).map((o) => o.id);
  };
  t.same(await ids('?q=lamb'), ['gg-lamb-1kg'], 'free text finds the lamb');
  t.same(await ids('?q=KOSHARI'), ['gg-koshari-kit'], 'case does not matter');
  t.same(await ids('?ingredientId=cw.ing.lamb_shoulder&country=EG&credential=halal_certified'), ['gg-lamb-1kg'], 'filters');
  t.same(await ids('?q=lamb&country=US'), [], 'the grocer does not serve the US');
  t.same(await ids('?maxPrice=7&currency=USD'), ['gg-koshari-kit'], 'price filter');
  t.same(await ids('?type=rental'), ['rb-fryer-rental-week']);
  t.same(await ids('?recipeId=cw:fifi.cooking:ec-160'), ['gg-koshari-kit']);
  const first = await h.call('GET', '/svc/v1/offers?q=lamb', { token: read });
  t.equal((first.body.items as { providerName: string }[])[0]?.providerName, 'Green Grocer Cairo');
  const bad = await h.call('GET', '/svc/v1/offers?maxPrice=cheap', { token: read });
  t.equal(bad.status, 422);
  t.match(bad.body.type, /validation-failed$/);
  t.match(bad.body.detail, /maxPrice/);
  t.equal((await h.call('GET', '/svc/v1/offers?q=lamb')).status, 401, 'a token is needed');

  const client = await mcp(h, h.token(['notify'], 'agent'));
  t.teardown(() => client.close());
  const r = await client.callTool({ name: 'search_offers', arguments: { q: 'lamb', country: 'EG' } });
  t.notOk(r.isError, JSON.stringify(r.structuredContent));
  t.match(r.structuredContent, { total: 1, items: [{ id: 'gg-lamb-1kg', provider: GROCER }] }, 'any token may search');
});

t.test('a quote request is routed to the providers that offer its items; quotes await approval', async (t) => {
  const h = await startHub({ market: marketDir() });
  t.teardown(() => h.close());
  const events: BusEvents['market'][] = [];
  h.app.ctx.bus.on('market', (e) => events.push(e));
  const agent = h.token(['order:create', 'read'], 'agent', 'shopping-bot');

  const both = await h.call('POST', '/svc/v1/quotes', {
    token: agent,
    body: {
      items: [
        { ingredientId: 'cw.ing.lamb_shoulder', quantity: 1500, unit: 'g' },
        { offerId: 'rb-fryer-rental-week', quantity: 1 },
      ],
    },
  });
  t.equal(both.status, 201, JSON.stringify(both.body));
  const rec = both.body as unknown as QuoteRequestRecord;
  t.ok(validate.quoteRequestRecord(rec).valid, JSON.stringify(validate.quoteRequestRecord(rec).issues));
  t.same(
    rec.routedTo.map((x) => [x.provider, x.items]),
    [
      [GROCER, [0]],
      [ROBOTS, [1]],
    ],
    'each provider gets the items it offers',
  );
  t.equal(rec.routedTo[0]?.quotes, 'https://greengrocer.example/cookwala/quotes', "the grocer's quote endpoint is recorded");
  const grocer = rec.quotes.find((q) => q.provider === GROCER);
  t.match(grocer, { state: 'awaiting_approval', total: { amount: 17.25, currency: 'USD' }, unavailable: [1] }, '1.5 kg at 11.50/kg');
  t.match(
    rec.quotes.find((q) => q.provider === ROBOTS),
    { state: 'awaiting_approval', total: { amount: 40, currency: 'USD' } },
  );
  t.equal(rec.state, 'awaiting_approval');

  const lamb = await h.call('POST', '/svc/v1/quotes', { token: agent, body: { items: [{ ingredientId: 'cw.ing.lamb_shoulder' }] } });
  t.same(
    (lamb.body.routedTo as { provider: string }[]).map((x) => x.provider),
    [GROCER],
    'the robot maker offers no lamb and is not asked',
  );
  t.match(lamb.body.quotes, [{ total: { amount: 11.5 } }], 'one pack of 1 kg when no quantity is given');
  const us = await h.call('POST', '/svc/v1/quotes', {
    token: agent,
    body: { items: [{ ingredientId: 'cw.ing.lamb_shoulder' }], country: 'US' },
  });
  t.equal(us.body.state, 'unrouted', 'nobody serves lamb in the US');
  t.match(us.body.excluded, [{ provider: GROCER, reason: /does not serve US/ }]);

  const got = await h.call('GET', `/svc/v1/quotes/${rec.id}`, { token: h.token(['read']) });
  t.equal(got.status, 200);
  t.equal(got.body.id, rec.id);
  t.equal((await h.call('GET', '/svc/v1/quotes/qr-00000000-0000-0000-0000-000000000000', { token: agent })).status, 404);
  const bad = await h.call('POST', '/svc/v1/quotes', { token: agent, body: { items: [{ quantity: 2 }] } });
  t.equal(bad.status, 422, 'an item names an ingredient, an offer or a recipe');
  t.equal((await h.call('POST', '/svc/v1/quotes', { token: h.token(['read']), body: { items: [{ offerId: 'x' }] } })).status, 403);

  const kinds = events.map((e) => `${e.kind} ${e.provider ?? ''}`.trim());
  t.same(kinds.slice(0, 3), ['quote.requested', `quote.received ${GROCER}`, `quote.received ${ROBOTS}`], 'events on the bus');

  const client = await mcp(h, agent);
  t.teardown(() => client.close());
  const viaMcp = await client.callTool({ name: 'request_quote', arguments: { items: [{ offerId: 'gg-koshari-kit', quantity: 2 }] } });
  t.notOk(viaMcp.isError, JSON.stringify(viaMcp.structuredContent));
  t.match(viaMcp.structuredContent, {
    routedTo: [{ provider: GROCER, items: [0] }],
    quotes: [{ state: 'awaiting_approval', total: { amount: 12 } }],
  });
  const denied = await (await mcp(h, h.token(['read'], 'agent'))).callTool({
    name: 'request_quote',
    arguments: { items: [{ offerId: 'x' }] },
  });
  t.match(denied.structuredContent, { error: 'forbidden' }, 'request_quote needs order:create');
});

t.test('an agent orders a quote but cannot approve it; a person can', async (t) => {
  const h = await startHub({ market: marketDir() });
  t.teardown(() => h.close());
  const events: BusEvents['market'][] = [];
  h.app.ctx.bus.on('market', (e) => events.push(e));
  const agent = h.token(['order:create', 'read'], 'agent', 'shopping-bot');
  const person = h.token(['order:create'], 'human', 'Amal');
  const req = await h.call('POST', '/svc/v1/quotes', {
    token: agent,
    body: { items: [{ ingredientId: 'cw.ing.lamb_shoulder', quantity: 2, unit: 'kg' }] },
  });
  const id = req.body.id as string;
  const quoteId = (req.body.quotes as { id: string }[])[0]?.id as string;

  const agentApprove = await h.call('POST', `/svc/v1/quotes/${id}/approve`, { token: agent, body: { quoteId } });
  t.equal(agentApprove.status, 403);
  t.match(agentApprove.body.type, /\/errors\/not-human-approver$/, 'an agent cannot approve');
  t.equal(h.hub.kitchen.orders().length, 0, 'nothing was ordered');

  const ordered = await h.call('POST', `/svc/v1/quotes/${id}/order`, { token: agent, body: { quoteId } });
  t.equal(ordered.status, 201, JSON.stringify(ordered.body));
  const order = ordered.body.order as { id: string; state: string; provider: string; estimatedTotal: unknown; lines: unknown[] };
  t.match(
    order,
    { state: 'awaiting_approval', provider: GROCER, estimatedTotal: { amount: 23, currency: 'USD' } },
    'the order awaits a person',
  );
  t.match(order.lines, [{ item: 'Lamb shoulder, halal, 1 kg', quantity: 2, unit: 'kg' }]);
  const again = await h.call('POST', `/svc/v1/quotes/${id}/order`, { token: agent, body: { quoteId } });
  t.equal(again.status, 409, 'a quote is ordered once');
  const agentOrderApprove = await h.call('POST', `/svc/v1/orders/${order.id}/approve`, { token: agent });
  t.match(agentOrderApprove.body.type, /not-human-approver$/, 'nor can it approve the order itself');
  t.equal((await h.call('POST', `/svc/v1/quotes/${id}/approve`, { token: agent, body: { quoteId } })).status, 403);

  const approved = await h.call('POST', `/svc/v1/quotes/${id}/approve`, { token: person, body: { quoteId } });
  t.equal(approved.status, 200, JSON.stringify(approved.body));
  t.match(approved.body, {
    order: { id: order.id, state: 'approved', approvedBy: { kind: 'human' } },
    quoteRequest: { state: 'approved' },
  });
  const seen = await h.call('GET', `/svc/v1/orders/${order.id}`, { token: person.length ? h.token(['read']) : '' });
  t.equal(seen.body.state, 'approved', 'the order intent itself is approved');
  t.same(
    events.map((e) => e.kind),
    ['quote.requested', 'quote.received', 'order.created', 'order.approved'],
  );

  // A person may approve a quote nobody ordered yet: the order is made and approved at once.
  const fresh = await h.call('POST', '/svc/v1/quotes', { token: person, body: { items: [{ offerId: 'gg-koshari-kit' }] } });
  const direct = await h.call('POST', `/svc/v1/quotes/${String(fresh.body.id)}/approve`, {
    token: person,
    body: { quoteId: (fresh.body.quotes as { id: string }[])[0]?.id },
  });
  t.equal(direct.status, 200);
  t.equal((direct.body.order as { state: string }).state, 'approved');
});

t.test('mandates: a lower cap refuses the order, allowed providers narrow the routing', async (t) => {
  const h = await startHub({ market: marketDir() });
  t.teardown(() => h.close());
  const alice = generateKeyFile({ kid: 'alice-1', actor: 'alice', validFrom: '2026-01-01T00:00:00Z' });
  h.app.ctx.principalKeys.add(publicRecord(alice), 'test');
  const agent = h.token(['order:create', 'read'], 'agent', 'shopping-bot');
  const agentId = h.app.ctx.tokens.list().find((x) => x.name === 'shopping-bot')?.id;
  const mandate = (perOrder: number, allowed = [GROCER]) =>
    signDocument(
      {
        kind: 'AgentMandate',
        principal: 'alice',
        agent: agentId,
        scopes: ['order_groceries'],
        expires: '2099-01-01T00:00:00Z',
        perOrderCap: { amount: perOrder, currency: 'USD' },
        allowedProviders: allowed,
      },
      alice,
      { kind: 'AgentMandate', signedAt: '2026-01-02T00:00:00Z' },
    );
  const items = [{ ingredientId: 'cw.ing.lamb_shoulder', quantity: 2, unit: 'kg' }, { offerId: 'rb-fryer-rental-week' }];
  const req = await h.call('POST', '/svc/v1/quotes', { token: agent, body: { items, mandate: mandate(20) } });
  t.equal(req.status, 201, JSON.stringify(req.body));
  t.same(
    (req.body.routedTo as { provider: string }[]).map((x) => x.provider),
    [GROCER],
    'only the allowed provider is asked',
  );
  t.match(req.body.excluded, [{ provider: ROBOTS, reason: /allowed providers/ }]);
  t.match(req.body.mandate, { principal: 'alice' });
  const quoteId = (req.body.quotes as { id: string }[])[0]?.id;

  const over = await h.call('POST', `/svc/v1/quotes/${String(req.body.id)}/order`, {
    token: agent,
    body: { quoteId, mandate: mandate(20) },
  });
  t.equal(over.status, 403, '23.00 is over a per-order cap of 20');
  t.match(over.body.type, /\/errors\/policy-deny$/);
  t.equal(over.body.mandateReason, 'over_cap');
  t.equal(h.hub.kitchen.orders().length, 0, 'no order was created');
  const within = await h.call('POST', `/svc/v1/quotes/${String(req.body.id)}/order`, {
    token: agent,
    body: { quoteId, mandate: mandate(30) },
  });
  t.equal(within.status, 201, 'a cap of 30 holds');
  t.match(within.body.order, { state: 'awaiting_approval', mandate: { principal: 'alice' } });

  const client = await mcp(h, agent);
  t.teardown(() => client.close());
  const robotsOnly = await client.callTool({
    name: 'request_quote',
    arguments: { items: [{ ingredientId: 'cw.ing.lamb_shoulder' }], mandate: mandate(100, [ROBOTS]) },
  });
  t.match(robotsOnly.structuredContent, { error: 'policy-deny', mandateReason: 'provider' }, 'no allowed provider offers lamb');
  const forged = await client.callTool({
    name: 'request_quote',
    arguments: {
      items: [{ ingredientId: 'cw.ing.lamb_shoulder' }],
      mandate: { ...mandate(100), perOrderCap: { amount: 1e6, currency: 'USD' } },
    },
  });
  t.match(forged.structuredContent, { error: 'policy-deny', mandateReason: 'bad_signature' });
});

t.test('a market document that does not validate stops start-up with its path', async (t) => {
  const dir = marketDir();
  writeFileSync(join(dir, 'provider-broken.json'), JSON.stringify({ $kind: 'Provider', svc: '0.2.0', id: 'did:web:x.example', name: 'X' }));
  await t.rejects(startHub({ market: dir }), {
    name: 'ConfigError',
    message: /provider-broken\.json: not a valid Provider: \/roles roles is required/,
  });
  const dup = marketDir();
  writeFileSync(join(dup, 'again.json'), JSON.stringify({ $kind: 'Provider', svc: '0.2.0', id: GROCER, name: 'Again', roles: ['grocer'] }));
  await t.rejects(startHub({ market: dup }), { message: /provider did:web:greengrocer\.example is also given by/ });
});
