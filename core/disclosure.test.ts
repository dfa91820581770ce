import t from 'tap';
import { canonicalize } from './canonical.js';
import { disclosureDigest, makeDisclosure, newSalt, verifyDisclosure } from './disclosure.js';
import { sha256Hex } from './hash.js';

t.test('digest is sha256 of the canonical [salt, value]', async (t) => {
  const salt = 'q1w2e3r4t5y6u7i8o9p0aa';
  const value = { person: 'diner-2', diet: 'low_sodium' };
  t.equal(disclosureDigest(salt, value), `sha256:${sha256Hex(canonicalize([salt, value]))}`);
  t.equal(disclosureDigest(salt, value), disclosureDigest(salt, { diet: 'low_sodium', person: 'diner-2' }), 'key order does not matter');
  t.throws(() => disclosureDigest('short', value), /22/);
});

t.test('make and verify', async (t) => {
  const d = makeDisclosure({ allergy: 'sesame' });
  t.equal(d.salt.length, 22);
  t.not(newSalt(), newSalt());
  t.ok(verifyDisclosure(d));
  t.notOk(verifyDisclosure({ ...d, value: { allergy: 'peanut' } }), 'other value');
  t.notOk(verifyDisclosure({ ...d, salt: `${d.salt}x` }), 'other salt');
  t.notOk(verifyDisclosure({ ...d, salt: d.salt.slice(0, 21) }), 'short salt never verifies');
  t.notOk(verifyDisclosure({ ...d, digest: 42 }));
  t.notOk(verifyDisclosure({ ...d, value: Number.NaN }), 'unhashable value is false, not a throw');
});
