/**
 * GraphQL `createOrderIntent` under a mandate, over a real socket: the same verification as `POST /svc/v1/orders`
 * and the MCP tool `create_order_intent` (runtime/hub/kitchen/kitchen-routes.ts `orderExtras`). An unsigned, tampered,
 * expired, over-cap, wrong-provider or wrong-principal mandate is refused with the problem slug and
 * `mandateReason` in `extensions`, as REST answers them; nothing is created; a valid mandate creates the order,
 * still awaiting a person's approval, and records whose mandate it was.
 */
import t from 'tap';
import { generateKeyFile, publicRecord } from '../../core/keys.js';
import { signDocument } from '../../core/signature.js';
import { startHub } from '../hub/test-helpers.js';
import { gql } from './test-helpers.js';

const ORDER = `mutation O($lines: [OrderLineInput!]!, $provider: String, $total: MoneyInput, $mandate: JSON) {
  createOrderIntent(lines: $lines, provider: $provider, estimatedTotal: $total, mandate: $mandate) {
    id state provider estimatedTotal { amount currency } mandate
  }
}`;

t.test('createOrderIntent verifies a mandate as REST and MCP do, refusals carry the slug in extensions', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const alice = generateKeyFile({ kid: 'alice-1', actor: 'alice', validFrom: '2026-01-01T00:00:00Z' });
  const bob = generateKeyFile({ kid: 'bob-1', actor: 'bob', validFrom: '2026-01-01T00:00:00Z' });
  for (const key of [alice, bob]) h.app.ctx.principalKeys.add(publicRecord(key), 'test');
  const agent = h.token(['order:create', 'read'], 'agent', 'graphql-bot');
  const agentId = h.app.ctx.tokens.list().find((x) => x.name === 'graphql-bot')?.id;
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
    gql(h, ORDER, {
      token: agent,
      variables: { lines: [{ item: 'rice', quantity: 1, unit: 'kg' }], provider, total: { amount, currency: 'EUR' }, mandate },
    });

  const refused: [string, unknown, number, string, string][] = [
    ['unsigned (invented)', { ...base }, 30, 'grocer.example', 'bad_signature'],
    ['tampered after signing', { ...sign(base), perOrderCap: { amount: 5000, currency: 'EUR' } }, 30, 'grocer.example', 'bad_signature'],
    ['expired', sign({ ...base, expires: '2026-01-03T00:00:00Z' }), 30, 'grocer.example', 'expired'],
    ['over the per-order cap', sign(base), 51, 'grocer.example', 'over_cap'],
    ['another provider', sign(base), 30, 'other.example', 'provider'],
    ["bob's key for alice", sign(base, bob), 30, 'grocer.example', 'wrong_principal'],
    ['no order_groceries', sign({ ...base, scopes: ['plan_meals'] }), 30, 'grocer.example', 'scope'],
  ];
  for (const [what, mandate, amount, provider, reason] of refused) {
    const r = await order(mandate, amount, provider);
    t.equal(r.status, 200, what);
    t.equal(r.data?.createOrderIntent ?? null, null, `${what}: no order`);
    t.match(
      r.errors?.[0]?.extensions,
      { slug: 'policy-deny', status: 403, type: `${h.url}/errors/policy-deny`, mandateReason: reason },
      what,
    );
  }
  const confirm = await order(sign({ ...base, confirmBefore: ['any_payment'] }));
  t.match(confirm.errors?.[0]?.extensions, { slug: 'not-human-approver', mandateReason: 'confirm_before' }, 'the person confirms payments');
  t.equal(h.hub.kitchen.orders().length, 0, 'no order was created by a refused call');

  // The same unsigned mandate over REST: the same slug and reason.
  const rest = await h.call('POST', '/svc/v1/orders', {
    token: agent,
    body: { lines: [{ item: 'rice', quantity: 1, unit: 'kg' }], provider: 'grocer.example', mandate: { ...base } },
  });
  t.equal(rest.status, 403);
  t.equal(rest.body.mandateReason, 'bad_signature', 'REST refuses it the same way');

  const ok = await order(sign(base), 45);
  t.notOk(ok.errors, JSON.stringify(ok.errors));
  t.match(ok.data?.createOrderIntent, {
    state: 'awaiting_approval',
    provider: 'grocer.example',
    estimatedTotal: { amount: 45, currency: 'EUR' },
    mandate: { principal: 'alice' },
  });
  const again = await order(sign(base), 45);
  t.equal(again.errors?.[0]?.extensions?.mandateReason, 'over_cap', 'the spend cap counts the first order');
  t.equal(h.hub.kitchen.orders().length, 1);

  // Bad arguments are the REST schema's refusals.
  const bad = await order(sign(base), 10, 'x'.repeat(101));
  t.equal(bad.errors?.[0]?.extensions?.slug, 'validation-failed');
});
