/**
 * Agent mandates on `POST /v1/executions`, the path that turns heat on: the mandate is a document the person
 * signed, verified against the principal keys the device holds. Before this, an agent could invent one.
 * Forged, tampered, expired, wrong-principal and wrong-agent mandates are each refused (`mandate_scope`, the
 * Core reason) and nothing heats; a valid one that acknowledges the recipe's allergens is accepted.
 */
import t from 'tap';
import { generateKeyFile, publicRecord } from '../../core/keys.js';
import { signDocument } from '../../core/signature.js';
import { executeRequest, KOSHARI, newKey, startTestApp } from '../app/testing.js';
import { recipeAllergens } from '../executor/start-checks.js';

t.test('forged, expired, wrong-principal, wrong-agent and unacknowledged mandates refused; a valid one accepted', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  h.app.ctx.rig.sim?.setPresence(true);
  const alice = generateKeyFile({ kid: 'alice-2026', actor: 'alice', validFrom: '2026-01-01T00:00:00Z' });
  const bob = generateKeyFile({ kid: 'bob-2026', actor: 'bob', validFrom: '2026-01-01T00:00:00Z' });
  const mallory = generateKeyFile({ kid: 'mallory', actor: 'alice', validFrom: '2026-01-01T00:00:00Z' });
  h.app.ctx.principalKeys.add(publicRecord(alice), 'test');
  h.app.ctx.principalKeys.add(publicRecord(bob), 'test');
  const agent = h.app.ctx.tokens.create({ scopes: ['cook', 'read'], kind: 'agent', name: 'dinner-bot' });
  const allergens = [...recipeAllergens(h.app.ctx.recipes.get(KOSHARI)?.doc ?? {})];
  t.ok(allergens.length > 0, 'the recipe declares allergens');
  const base = {
    kind: 'AgentMandate',
    principal: 'alice',
    agent: agent.info.id,
    scopes: ['start_cooking'],
    expires: '2099-01-01T00:00:00Z',
    'x-acknowledgedAllergens': allergens,
  };
  const sign = (doc: Record<string, unknown>, key = alice) =>
    signDocument(doc, key, { kind: 'AgentMandate', signedAt: '2026-01-02T00:00:00Z' });
  const start = async (mandate: unknown) => {
    const key = newKey();
    const res = await h.app.ctx.http.inject({
      method: 'POST',
      url: '/v1/executions',
      payload: executeRequest(h.app, KOSHARI, key, mandate === undefined ? {} : { mandate }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.token}`, 'idempotency-key': key },
    });
    t.equal(res.statusCode, 202);
    return res.json() as { state: string; refusal?: { reason: string; detail: string } };
  };
  const refusals: [string, unknown, RegExp][] = [
    [
      'an invented, unsigned mandate',
      { principal: 'alice', agent: agent.info.id, scopes: ['start_cooking'], expires: '2099-01-01T00:00:00Z' },
      /unsigned/,
    ],
    ['signed by a key the device does not hold', sign(base, mallory), /unknown_key/],
    ['tampered after signing', { ...sign({ ...base, scopes: ['plan_meals'] }), scopes: ['start_cooking'] }, /bad_signature/],
    ['expired', sign({ ...base, expires: '2026-01-03T00:00:00Z' }), /expired/],
    ["bob's key speaking for alice", sign(base, bob), /wrong_principal/],
    ['for another agent', sign({ ...base, agent: 'tok_someone_else' }), /wrong_agent/],
    ['without start_cooking', sign({ ...base, scopes: ['plan_meals'] }), /scope/],
    ['allergens not acknowledged', sign({ ...base, 'x-acknowledgedAllergens': [] }), /allergens/],
  ];
  for (const [what, mandate, why] of refusals) {
    const r = await start(mandate);
    t.equal(r.state, 'refused', what);
    t.equal(r.refusal?.reason, 'mandate_scope', what);
    t.match(r.refusal?.detail, why, what);
  }
  t.equal((await start(undefined)).refusal?.reason, 'not_authorized', 'an agent without a mandate');

  const ok = await start(sign(base));
  t.not(ok.state, 'refused', `a valid mandate is accepted (${ok.refusal?.detail ?? ok.state})`);
  const byName = await start(sign({ ...base, agent: 'dinner-bot' }));
  t.equal(byName.refusal?.reason, 'busy', 'the agent by name passes the mandate checks too (and meets the running execution)');

  h.app.ctx.principalKeys.revoke('alice-2026');
  const after = await start(sign(base));
  t.equal(after.refusal?.reason, 'mandate_scope', 'revoking the key voids the mandates it signed, earlier ones too');
  t.match(after.refusal?.detail, /revoked/);
});
