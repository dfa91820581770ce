import t from 'tap';
import { generateKeyFile, publicRecord } from './keys.js';
import { verifyMandate } from './mandate.js';
import { signDocument } from './signature.js';

const now = new Date('2026-06-01T12:00:00Z');
const alice = generateKeyFile({ kid: 'alice-1', actor: 'alice', validFrom: '2026-01-01T00:00:00Z' });
const bob = generateKeyFile({ kid: 'bob-1', actor: 'bob', validFrom: '2026-01-01T00:00:00Z' });
const keys = [publicRecord(alice), publicRecord(bob)];
const base = {
  kind: 'AgentMandate',
  principal: 'alice',
  agent: 'tok_agent',
  scopes: ['start_cooking', 'order_groceries'],
  expires: '2026-06-02T00:00:00Z',
  perOrderCap: { amount: 50, currency: 'EUR' },
  spendCap: { amount: 120, currency: 'EUR' },
  allowedProviders: ['grocer.example'],
};
const sign = (doc: Record<string, unknown>, key = alice) =>
  signDocument(doc, key, { kind: 'AgentMandate', signedAt: '2026-06-01T08:00:00Z' });
const cook = { scope: 'start_cooking' as const, agent: ['tok_agent', 'helper'], now };
const reason = (doc: unknown, action: Parameters<typeof verifyMandate>[2] = cook) => {
  const r = verifyMandate(doc, keys, action);
  return r.ok ? 'ok' : r.reason;
};

t.test('a valid mandate verifies', (t) => {
  const r = verifyMandate(sign(base), keys, cook);
  t.ok(r.ok);
  if (r.ok) t.match(r.hash, /^sha256:/);
  t.equal(reason(sign({ ...base, agent: 'helper' })), 'ok', 'the agent by name');
  t.end();
});

t.test('forged, tampered, expired, wrong principal, wrong agent, out of scope: each refused', (t) => {
  t.equal(reason({ ...base }), 'bad_signature', 'unsigned (invented)');
  const forged = { ...sign(base), signature: { ...sign(base).signature, sig: sign({ ...base, agent: 'x' }).signature.sig } };
  t.equal(reason(forged), 'bad_signature', 'a signature lifted from another mandate');
  t.equal(
    reason({ ...sign(base), scopes: ['start_cooking', 'order_groceries', 'change_settings'] }),
    'bad_signature',
    'tampered after signing',
  );
  const mallory = generateKeyFile({ kid: 'alice-1', actor: 'alice', validFrom: '2026-01-01T00:00:00Z' });
  t.equal(reason(sign(base, mallory)), 'bad_signature', 'a key the device does not know under a known kid');
  t.equal(reason(sign(base, bob)), 'wrong_principal', "bob's key cannot speak for alice");
  t.equal(reason(sign({ ...base, principal: 'bob' })), 'wrong_principal', "alice's key cannot sign as bob");
  t.equal(reason(sign({ ...base, agent: 'tok_other' })), 'wrong_agent');
  t.equal(reason(sign({ ...base, expires: '2026-06-01T12:00:00Z' })), 'expired');
  t.equal(reason(sign({ ...base, expires: 'tomorrow' })), 'expired');
  t.equal(reason(sign({ ...base, scopes: ['plan_meals'] })), 'scope');
  t.equal(reason({ ...base, scopes: 'all' }), 'malformed');
  t.equal(reason(null), 'malformed');
  t.equal(reason(signDocument(base, alice, { kind: 'AgentMandate', signedAt: '2026-07-01T00:00:00Z' })), 'expired', 'signed in the future');
  t.end();
});

t.test('caps, providers and confirm-before', (t) => {
  const order = { scope: 'order_groceries' as const, agent: ['tok_agent'], now, provider: 'grocer.example' };
  t.equal(reason(sign(base), { ...order, amount: { amount: 40, currency: 'EUR' } }), 'ok');
  t.equal(reason(sign(base), { ...order, amount: { amount: 51, currency: 'EUR' } }), 'over_cap', 'over the per-order cap');
  t.equal(reason(sign(base), { ...order, amount: { amount: 40, currency: 'EUR' }, spent: 100 }), 'over_cap', 'over the spend cap');
  t.equal(reason(sign(base), { ...order, amount: { amount: 40, currency: 'USD' } }), 'over_cap', 'another currency');
  t.equal(reason(sign(base), { ...order, provider: 'other.example' }), 'provider');
  t.equal(
    reason(sign({ ...base, confirmBefore: ['payment_over_cap'] }), { ...order, amount: { amount: 60, currency: 'EUR' } }),
    'confirm_before',
  );
  t.equal(
    reason(sign({ ...base, confirmBefore: ['any_payment'] }), { ...order, amount: { amount: 1, currency: 'EUR' } }),
    'confirm_before',
  );
  t.equal(
    reason(sign({ ...base, confirmBefore: ['diet_or_allergen_change'] }), { ...cook, kinds: ['diet_or_allergen_change'] }),
    'confirm_before',
  );
  t.equal(reason(sign(base), { ...cook, kinds: ['diet_or_allergen_change'] }), 'ok', 'not in the list: the signature is the consent');
  t.equal(reason(sign(base), { ...cook, kinds: ['safety_override'] }), 'confirm_before', 'safety_override is always confirmed');
  t.end();
});
