import { randomBytes } from 'node:crypto';
import * as noble from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import t from 'tap';
import { acceptablePublicKey, publicKeyOf, randomSeed, signBytes, verifyBytes } from './ed25519.js';

// An independent implementation (a development dependency only) to compare against.
noble.hashes.sha512 = sha512;
const strict = (sig: Uint8Array, msg: Uint8Array, pub: Uint8Array): boolean => {
  try {
    return noble.verify(sig, msg, pub, { zip215: false });
  } catch {
    return false;
  }
};

const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));
const L = (1n << 252n) + 27742317777372353535851937790883648493n;
const P = (1n << 255n) - 19n;
const le = (n: bigint, len = 32): Uint8Array => {
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    out[i] = Number(n & 255n);
    n >>= 8n;
  }
  return out;
};
const fromLe = (b: Uint8Array): bigint => b.reduceRight((n, byte) => (n << 8n) | BigInt(byte), 0n);

// RFC 8032 section 7.1, tests 1 and 2.
const vectors = [
  {
    seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    pub: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    msg: '',
    sig: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    pub: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    msg: '72',
    sig: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
];

t.test('RFC 8032 test vectors: key, signature, verification', async (t) => {
  for (const v of vectors) {
    t.same(Buffer.from(publicKeyOf(hex(v.seed))).toString('hex'), v.pub);
    t.same(Buffer.from(signBytes(hex(v.msg), hex(v.seed))).toString('hex'), v.sig);
    t.ok(verifyBytes(hex(v.sig), hex(v.msg), hex(v.pub)));
    t.notOk(verifyBytes(hex(v.sig), hex(`${v.msg}00`), hex(v.pub)), 'another message');
  }
});

t.test('strict verification refuses what RFC 8032 strict decoding refuses', async (t) => {
  const seed = randomSeed();
  const pub = publicKeyOf(seed);
  const msg = new TextEncoder().encode('a recipe revision');
  const sig = signBytes(msg, seed);
  t.ok(verifyBytes(sig, msg, pub));
  const malleable = new Uint8Array(sig);
  malleable.set(le(fromLe(sig.subarray(32)) + L), 32);
  t.notOk(verifyBytes(malleable, msg, pub), 'S + L (a second signature from the first) is refused');

  // With the identity as the key, R = identity and S = 0 satisfy the equation for every message.
  const identity = hex('0100000000000000000000000000000000000000000000000000000000000000');
  const forged = new Uint8Array(64);
  forged[0] = 1;
  t.notOk(verifyBytes(forged, msg, identity), 'the identity key with the all-zero forgery');
  t.notOk(verifyBytes(forged, msg, le(P + 1n)), 'the identity encoded with y = p + 1');
  const nonCanonicalSigned = le(P + 2n);
  nonCanonicalSigned[31] = (nonCanonicalSigned[31] as number) | 0x80;
  t.notOk(acceptablePublicKey(nonCanonicalSigned), 'y = p + 2 with the sign bit set');
  t.notOk(acceptablePublicKey(le(P)), 'y = p');
  t.ok(acceptablePublicKey(le(P - 2n)), 'y = p - 2 is canonical (whether it is a point is for the verifier)');
  const withSign = new Uint8Array(identity);
  withSign[31] = 0x80;
  t.notOk(acceptablePublicKey(withSign), 'x = 0 with the sign bit set');
  t.notOk(verifyBytes(sig.subarray(0, 63), msg, pub), 'a short signature is false, not a throw');
  t.notOk(verifyBytes(sig, msg, pub.subarray(0, 31)), 'a short key is false, not a throw');
  t.notOk(verifyBytes(sig, msg, le(2n)), 'a y that is on no point');
});

t.test('the small-order list is the eight points of small order, and each is refused', async (t) => {
  const found = new Set<string>();
  // Every small-order point is a torsion point T with 8T = identity: take 8 multiples of a point of order 8.
  const order8 = noble.Point.fromBytes(hex('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05'));
  for (let k = 0n; k < 8n; k++) {
    const pt = k === 0n ? noble.Point.ZERO : order8.multiply(k, false);
    found.add(Buffer.from(pt.toBytes()).toString('hex'));
  }
  t.equal(found.size, 8);
  for (const enc of found) {
    t.ok(noble.Point.fromBytes(hex(enc)).isSmallOrder(), `${enc} has small order`);
    t.notOk(acceptablePublicKey(hex(enc)), `${enc} refused`);
  }
  // y = 0 (order 4) with and without the sign bit are both in the list above.
  t.ok(found.has('0000000000000000000000000000000000000000000000000000000000000000'));
  t.ok(found.has('0000000000000000000000000000000000000000000000000000000000000080'));
});

t.test('a small-order part in R: the cofactored check takes it, this one never does', async (t) => {
  // Signed by hand with the key's scalar, R' = rB + T for a torsion point T: [8]SB = [8]R' + [8]kA holds (what
  // @noble's strict mode checks), SB = R' + kA does not (what OpenSSL checks). So verifyBytes is the stricter of
  // the two here, never the looser: whatever it accepts, the independent implementation accepts too.
  const seed = randomSeed();
  const { scalar, pointBytes } = noble.utils.getExtendedPublicKey(seed);
  const order8 = noble.Point.fromBytes(hex('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05'));
  const G = noble.Point.BASE;
  let refusedHere = 0;
  for (let k = 1n; k < 8n; k++) {
    const msg = randomBytes(20);
    const r = (fromLe(randomBytes(32)) % (L - 1n)) + 1n;
    const R = G.multiply(r).add(order8.multiply(k, false)).toBytes();
    const h = fromLe(new Uint8Array(sha512(Uint8Array.from([...R, ...pointBytes, ...msg])))) % L;
    const sig = new Uint8Array([...R, ...le((r + h * scalar) % L)]);
    const here = verifyBytes(sig, msg, pointBytes);
    t.ok(!here || strict(sig, msg, pointBytes), `k = ${k}: accepted here only if accepted there`);
    t.ok(strict(sig, msg, pointBytes), `k = ${k}: the cofactored check takes it`);
    if (!here) refusedHere++;
  }
  t.equal(refusedHere, 7, 'every one refused here');
});

t.test('agrees with an independent strict implementation on random inputs', async (t) => {
  const seed = randomSeed();
  const pub = publicKeyOf(seed);
  t.same(pub, noble.getPublicKey(seed), 'same public key');
  let disagreements = 0;
  for (let i = 0; i < 300; i++) {
    const msg = randomBytes(i % 40);
    const good = signBytes(msg, seed);
    const cases: [Uint8Array, Uint8Array][] = [
      [good, pub],
      [new Uint8Array(randomBytes(64)), pub],
      [good, new Uint8Array(randomBytes(32))],
    ];
    for (const [sig, key] of cases) if (verifyBytes(sig, msg, key) !== strict(sig, msg, key)) disagreements++;
  }
  t.equal(disagreements, 0);
});
