/**
 * Ed25519 (RFC 8032) through node:crypto (OpenSSL), with the strict checks OpenSSL leaves out.
 *
 * Node's own implementation keeps nothing in the JavaScript heap (a pure-JavaScript one kept a ~1 MB table of
 * precomputed points for as long as the process ran, measured in the hub after the hostile mix) and verifies in
 * tens of microseconds instead of milliseconds. OpenSSL already rejects S ≥ L and any R that is not the canonical
 * encoding of the point it recomputes, and it checks the cofactorless equation. Before handing a public key to it,
 * `verifyBytes` also refuses what strict RFC 8032 decoding (and libsodium) refuse and OpenSSL takes: a y that is
 * not below p, x = 0 with the sign bit set, and the eight points of small order (with the identity as the key, the
 * all-zero-S signature verifies any message).
 */
import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign, verify } from 'node:crypto';

/** The DER prefixes of an Ed25519 SubjectPublicKeyInfo and PKCS #8 PrivateKeyInfo (RFC 8410), before the 32 bytes. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The canonical encodings of the points of small order (orders 1, 2, 4, 8), as libsodium lists them. */
const SMALL_ORDER = new Set([
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
]);

/** y (the low 255 bits, little-endian) is at least p = 2^255 − 19: a non-canonical encoding. */
function yNotBelowP(point: Uint8Array): boolean {
  if (((point[31] as number) & 0x7f) !== 0x7f) return false;
  for (let i = 30; i >= 1; i--) if (point[i] !== 0xff) return false;
  return (point[0] as number) >= 0xed;
}

/** x = 0 with the sign bit set: y = ±1 are the only points with x = 0, so y = 1 or y = p − 1 and bit 255 set. */
function zeroXWithSign(point: Uint8Array): boolean {
  if (((point[31] as number) & 0x80) === 0) return false;
  const y = Buffer.from(point);
  y[31] = (y[31] as number) & 0x7f;
  const hex = y.toString('hex');
  return (
    hex === '0100000000000000000000000000000000000000000000000000000000000000' ||
    hex === 'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'
  );
}

/** A public key strict verification takes: canonical, not x = 0 with a sign, not of small order. */
export function acceptablePublicKey(publicKey: Uint8Array): boolean {
  if (publicKey.length !== 32 || yNotBelowP(publicKey) || zeroXWithSign(publicKey)) return false;
  return !SMALL_ORDER.has(Buffer.from(publicKey).toString('hex'));
}

function privateKeyOf(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

export function publicKeyOf(seed: Uint8Array): Uint8Array {
  const spki = createPublicKey(privateKeyOf(seed)).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(SPKI_PREFIX.length));
}

export function signBytes(message: Uint8Array, seed: Uint8Array): Uint8Array {
  return new Uint8Array(sign(null, message, privateKeyOf(seed)));
}

/** True only for a valid signature; wrong lengths or malformed points are false, never a throw. */
export function verifyBytes(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || !acceptablePublicKey(publicKey)) return false;
  try {
    const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

export function randomSeed(): Uint8Array {
  return new Uint8Array(randomBytes(32));
}
