import t from 'tap';
import { generateKeyFile, type KeyFile, parseKeyFile, parseKeyRecord, publicRecord } from './keys.js';

// RFC 8032 test 1.
const seedHex = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const rfcKey = {
  kid: 'did:web:example.test#k1',
  alg: 'EdDSA',
  publicKey: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
  actor: 'test',
  validFrom: '2026-01-01T00:00:00Z',
  privateKey: Buffer.from(seedHex, 'hex').toString('base64url'),
};

t.test('generateKeyFile makes a usable Ed25519 key file', async (t) => {
  const k = generateKeyFile({ kid: 'did:web:a.example#k1', actor: 'hub:home', validFrom: '2026-01-01T00:00:00Z' });
  t.equal(k.alg, 'EdDSA');
  t.equal(Buffer.from(k.publicKey, 'base64url').length, 32);
  t.equal(Buffer.from(k.privateKey, 'base64url').length, 32);
  t.same(parseKeyFile(JSON.parse(JSON.stringify(k))), k, 'round trip through JSON');
  t.not(generateKeyFile({ kid: 'a', actor: 'b' }).privateKey, k.privateKey, 'fresh randomness');
  t.match(generateKeyFile({ kid: 'a', actor: 'b' }).validFrom, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.throws(() => generateKeyFile({ kid: '', actor: 'b' }), /kid/);
  t.throws(() => generateKeyFile({ kid: 'a', actor: 'b', validFrom: 'yesterday' }), /validFrom/);
});

t.test('publicRecord never carries the private key', async (t) => {
  const rec = publicRecord({ ...(rfcKey as KeyFile), revokedAt: '2026-06-01T00:00:00Z', revocationReason: 'lost' });
  t.notOk('privateKey' in rec);
  t.same(rec, {
    kid: rfcKey.kid,
    alg: 'EdDSA',
    publicKey: rfcKey.publicKey,
    actor: 'test',
    validFrom: rfcKey.validFrom,
    revokedAt: '2026-06-01T00:00:00Z',
    revocationReason: 'lost',
  });
});

t.test('parseKeyFile accepts the RFC 8032 key and explains bad files', async (t) => {
  t.equal(parseKeyFile({ ...rfcKey, 'x-note': 'test key' }).publicKey, rfcKey.publicKey);
  const bad: [unknown, RegExp][] = [
    [null, /JSON object/],
    [[], /JSON object/],
    [{ ...rfcKey, kid: '' }, /"kid"/],
    [{ ...rfcKey, alg: 'ES256' }, /"alg"/],
    [{ ...rfcKey, publicKey: 'abc' }, /32 bytes/],
    [{ ...rfcKey, publicKey: `${rfcKey.publicKey}=` }, /32 bytes/],
    [{ ...rfcKey, validFrom: '2026-02-30T00:00:00Z' }, /validFrom/],
    [{ ...rfcKey, validFrom: undefined }, /validFrom/],
    [{ ...rfcKey, revokedAt: 'soon' }, /revokedAt/],
    [{ ...rfcKey, privateKey: undefined }, /privateKey.*missing/],
    [{ ...rfcKey, privateKey: 'AAAA' }, /32-byte seed/],
    [{ ...rfcKey, publicKey: 'PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw' }, /does not belong/],
  ];
  for (const [input, re] of bad) t.throws(() => parseKeyFile(input), re, JSON.stringify(input)?.slice(0, 60));
  t.equal(parseKeyRecord({ ...rfcKey, privateKey: undefined }).kid, rfcKey.kid, 'a public record parses as a record');
});
