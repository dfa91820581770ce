/**
 * Mandates on the hub's orders over real HTTP: a person registers their key with an admin token, an agent
 * orders under a mandate that person signed. Forged, expired, over-cap, wrong-provider and wrong-principal
 * mandates are 403 `policy-deny` problems; a payment the person confirms themselves is `not-human-approver`;
 * a valid one creates the order (still awaiting a person's approval) and records whose mandate it was.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { generateKeyFile, publicRecord } from '../../../core/keys.js';
import { signDocument } from '../../../core/signature.js';
import { startHub } from '../test-helpers.js';

t.test('orders under a mandate: each bad mandate refused, a valid one accepted, the spend cap adds up', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const alice = generateKeyFile({ kid: 'alice-1', actor: 'alice', validFrom: '2026-01-01T00:00:00Z' });
  const bob = generateKeyFile({ kid: 'bob-1', actor: 'bob', validFrom: '2026-01-01T00:00:00Z' });
  const admin = h.token(['admin'], 'human', 'alice admin');
  for (const key of [alice, bob]) {
    const reg = await h.call('POST', '/svc/v1/principal-keys', { token: admin, body: publicRecord(key) });
    t.equal(reg.status, 201, JSON.stringify(reg.body));
  }
  const leak = await h.call('POST', '/svc/v1/principal-keys', { token: admin, body: generateKeyFile({ kid: 'x', actor: 'x' }) });
  t.equal(leak.status, 422, 'a key file with its private key is refused');
  const agentToken = h.token(['order:create', 'read'], 'agent', 'grocery-bot');
  const agentId = h.app.ctx.tokens.list().find((x) => x.name === 'grocery-bot')?.id;
  const base = {
    kind: 'AgentMandate',
    principal: 'alice',
    agent: agentId,
    scopes: ['order_groceries'],
    expires: '2099-01-01T00:00:00Z',
    perOrderCap: { amount: 50, currency: 'EUR' },
    spendCap: { amount: 80, currency: 'EUR' },
    allowedProviders: ['grocer.example'],
  };
  const sign = (doc: Record<string, unknown>, key = alice) =>
    signDocument(doc, key, { kind: 'AgentMandate', signedAt: '2026-01-02T00:00:00Z' });
  const order = (mandate: unknown, amount = 30, provider = 'grocer.example') =>
    h.call('POST', '/svc/v1/orders', {
      token: agentToken,
      body: { lines: [{ item: 'rice', quantity: 1, unit: 'kg' }], provider, estimatedTotal: { amount, currency: 'EUR' }, mandate },
    });
  const refused: [string, unknown, number, string, string][] = [
    ['invented', { ...base }, 30, 'grocer.example', 'bad_signature'],
    ['expired', sign({ ...base, expires: '2026-01-03T00:00:00Z' }), 30, 'grocer.example', 'expired'],
    ['over the per-order cap', sign(base), 51, 'grocer.example', 'over_cap'],
    ['another provider', sign(base), 30, 'other.example', 'provider'],
    ["bob's key for alice", sign(base, bob), 30, 'grocer.example', 'wrong_principal'],
    ['no order_groceries', sign({ ...base, scopes: ['plan_meals'] }), 30, 'grocer.example', 'scope'],
  ];
  for (const [what, mandate, amount, provider, reason] of refused) {
    const r = await order(mandate, amount, provider);
    t.equal(r.status, 403, what);
    t.match(r.body.type, /\/errors\/policy-deny$/, what);
    t.equal(r.body.mandateReason, reason, what);
  }
  const confirm = await order(sign({ ...base, confirmBefore: ['any_payment'] }));
  t.equal(confirm.status, 403);
  t.match(confirm.body.type, /not-human-approver$/, 'a payment the person confirms themselves');
  t.equal(h.hub.kitchen.orders().length, 0, 'no order was created by a refused call');

  const ok = await order(sign(base), 45);
  t.equal(ok.status, 201, JSON.stringify(ok.body));
  t.equal(ok.body.state, 'awaiting_approval', 'a person still approves it');
  t.equal((ok.body.mandate as { principal: string }).principal, 'alice');
  const second = await order(sign(base), 45);
  t.equal(second.status, 403, 'the spend cap counts the first order');
  t.equal(second.body.mandateReason, 'over_cap');
  t.equal((await order(sign(base), 35)).status, 201, 'within what is left');

  const revoked = await h.call('POST', '/svc/v1/principal-keys/alice-1/revoke', { token: admin, body: {} });
  t.equal(revoked.status, 200);
  t.equal((await order(sign(base), 1)).body.mandateReason, 'bad_signature', 'a revoked key voids the mandate');
  const agentRevoke = await h.call('POST', '/svc/v1/principal-keys/bob-1/revoke', { token: h.token(['admin'], 'agent'), body: {} });
  t.equal(agentRevoke.status, 403);
  t.match(agentRevoke.body.type, /not-human-approver$/, 'an agent cannot manage principal keys');
});

t.test('MCP create_order_intent verifies a mandate as the REST route does', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const alice = generateKeyFile({ kid: 'alice-1', actor: 'alice', validFrom: '2026-01-01T00:00:00Z' });
  const bob = generateKeyFile({ kid: 'bob-1', actor: 'bob', validFrom: '2026-01-01T00:00:00Z' });
  for (const key of [alice, bob]) h.app.ctx.principalKeys.add(publicRecord(key), 'test');
  const agentToken = h.token(['order:create', 'read'], 'agent', 'mcp-bot');
  const agentId = h.app.ctx.tokens.list().find((x) => x.name === 'mcp-bot')?.id;
  const base = {
    kind: 'AgentMandate',
    principal: 'alice',
    agent: agentId,
    scopes: ['order_groceries'],
    expires: '2099-01-01T00:00:00Z',
    perOrderCap: { amount: 50, currency: 'EUR' },
  };
  const sign = (doc: Record<string, unknown>, key = alice) =>
    signDocument(doc, key, { kind: 'AgentMandate', signedAt: '2026-01-02T00:00:00Z' });
  const client = new Client({ name: 'mandate-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${agentToken}` } },
    }),
  );
  t.teardown(() => client.close());
  const order = (mandate: unknown, amount = 30) =>
    client.callTool({
      name: 'create_order_intent',
      arguments: { lines: [{ item: 'rice', quantity: 1, unit: 'kg' }], estimatedTotal: { amount, currency: 'EUR' }, mandate },
    });
  const refused: [string, unknown, number, string][] = [
    ['forged (unsigned)', { ...base }, 30, 'bad_signature'],
    ['tampered after signing', { ...sign(base), perOrderCap: { amount: 5000, currency: 'EUR' } }, 30, 'bad_signature'],
    ['expired', sign({ ...base, expires: '2026-01-03T00:00:00Z' }), 30, 'expired'],
    ['over the per-order cap', sign(base), 51, 'over_cap'],
    ["bob's key for alice", sign(base, bob), 30, 'wrong_principal'],
  ];
  for (const [what, mandate, amount, reason] of refused) {
    const r = await order(mandate, amount);
    t.equal(r.isError, true, `${what}: refused`);
    t.match(r.structuredContent, { error: 'policy-deny', mandateReason: reason }, what);
  }
  const confirm = await order(sign({ ...base, confirmBefore: ['any_payment'] }));
  t.match(confirm.structuredContent, { error: 'not-human-approver' }, 'a payment the person confirms themselves');
  t.equal(h.hub.kitchen.orders().length, 0, 'no order was created by a refused call');
  const ok = await order(sign(base), 45);
  t.notOk(ok.isError, JSON.stringify(ok.structuredContent));
  t.match(ok.structuredContent, { state: 'awaiting_approval', mandate: { principal: 'alice' } }, 'recorded whose mandate it was');
});
