/** Key records and key files (semantics §1). A key file is a key record plus the 32-byte Ed25519 seed. */
import { decodeBase64url, encodeBase64url } from './base64url.js';
import { publicKeyOf, randomSeed } from './ed25519.js';
import { parseRfc3339, toRfc3339Seconds } from './time.js';

export interface KeyRecord {
  kid: string;
  alg: 'EdDSA';
  /** base64url (unpadded) of the raw 32-byte public key. */
  publicKey: string;
  actor: string;
  validFrom: string;
  validTo?: string;
  revokedAt?: string;
  revocationReason?: string;
}

export interface KeyFile extends KeyRecord {
  /** base64url (unpadded) of the 32-byte seed. Keep it secret. */
  privateKey: string;
}

export function generateKeyFile(opts: { kid: string; actor: string; validFrom?: string }): KeyFile {
  if (typeof opts.kid !== 'string' || opts.kid === '') throw new Error('kid must be a non-empty string');
  if (typeof opts.actor !== 'string' || opts.actor === '') throw new Error('actor must be a non-empty string');
  const validFrom = opts.validFrom ?? toRfc3339Seconds(new Date());
  if (!parseRfc3339(validFrom)) throw new Error(`validFrom ${JSON.stringify(validFrom)} is not an RFC 3339 time with offset`);
  const seed = randomSeed();
  return {
    kid: opts.kid,
    alg: 'EdDSA',
    publicKey: encodeBase64url(publicKeyOf(seed)),
    actor: opts.actor,
    validFrom,
    privateKey: encodeBase64url(seed),
  };
}

/** The publishable record of a key file: everything but the private key. */
export function publicRecord(key: KeyFile): KeyRecord {
  const rec: KeyRecord = { kid: key.kid, alg: key.alg, publicKey: key.publicKey, actor: key.actor, validFrom: key.validFrom };
  if (key.validTo !== undefined) rec.validTo = key.validTo;
  if (key.revokedAt !== undefined) rec.revokedAt = key.revokedAt;
  if (key.revocationReason !== undefined) rec.revocationReason = key.revocationReason;
  return rec;
}

function requireString(obj: Record<string, unknown>, field: string, what: string): string {
  const v = obj[field];
  if (typeof v !== 'string' || v === '') throw new Error(`${what}: "${field}" must be a non-empty string`);
  return v;
}

function optionalTime(obj: Record<string, unknown>, field: string, what: string): string | undefined {
  const v = obj[field];
  if (v === undefined || v === null) return undefined;
  if (!parseRfc3339(v)) throw new Error(`${what}: "${field}" must be an RFC 3339 time with offset`);
  return v as string;
}

/** Check a parsed key record (public part). Throws an Error saying what is wrong. */
export function parseKeyRecord(json: unknown, what = 'key record'): KeyRecord {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error(`${what} must be a JSON object`);
  const obj = json as Record<string, unknown>;
  const kid = requireString(obj, 'kid', what);
  if (obj.alg !== 'EdDSA') throw new Error(`${what}: "alg" must be "EdDSA"`);
  const publicKey = requireString(obj, 'publicKey', what);
  if (decodeBase64url(publicKey)?.length !== 32) throw new Error(`${what}: "publicKey" must be base64url of 32 bytes`);
  const actor = requireString(obj, 'actor', what);
  const validFrom = optionalTime(obj, 'validFrom', what);
  if (validFrom === undefined) throw new Error(`${what}: "validFrom" is required`);
  const rec: KeyRecord = { kid, alg: 'EdDSA', publicKey, actor, validFrom };
  const validTo = optionalTime(obj, 'validTo', what);
  if (validTo !== undefined) rec.validTo = validTo;
  const revokedAt = optionalTime(obj, 'revokedAt', what);
  if (revokedAt !== undefined) rec.revokedAt = revokedAt;
  if (obj.revocationReason !== undefined && obj.revocationReason !== null)
    rec.revocationReason = requireString(obj, 'revocationReason', what);
  return rec;
}

/** Check a parsed key file. Throws an Error with a clear message on a bad file (never returns a half-valid key). */
export function parseKeyFile(json: unknown): KeyFile {
  const what = 'key file';
  const rec = parseKeyRecord(json, what);
  const obj = json as Record<string, unknown>;
  if (obj.privateKey === undefined) throw new Error(`${what}: "privateKey" is missing (is this a public key record?)`);
  const privateKey = requireString(obj, 'privateKey', what);
  const seed = decodeBase64url(privateKey);
  if (seed?.length !== 32) throw new Error(`${what}: "privateKey" must be base64url of a 32-byte seed`);
  if (encodeBase64url(publicKeyOf(seed)) !== rec.publicKey) throw new Error(`${what}: "publicKey" does not belong to "privateKey"`);
  return { ...rec, privateKey };
}
