/**
 * Selective disclosure digests (semantics §1): `sha256:` + hex SHA-256 of the canonical JSON of `[salt, value]`.
 * A salt has at least 22 characters (128 bits as base64url), so a digest of a guessable value stays unguessable.
 */
import { randomBytes } from 'node:crypto';
import { canonicalize } from './canonical.js';
import { sha256Hex } from './hash.js';

export const MIN_SALT_LENGTH = 22;

export function disclosureDigest(salt: string, value: unknown): string {
  if (typeof salt !== 'string' || salt.length < MIN_SALT_LENGTH)
    throw new Error(`disclosure salt must be a string of at least ${MIN_SALT_LENGTH} characters`);
  return `sha256:${sha256Hex(canonicalize([salt, value]))}`;
}

/** A fresh salt (16 random bytes as base64url, 22 characters). */
export function newSalt(): string {
  return randomBytes(16).toString('base64url');
}

/** Commit to `value`: the digest to publish and the salt to reveal later. */
export function makeDisclosure(value: unknown, salt: string = newSalt()): { digest: string; salt: string; value: unknown } {
  return { digest: disclosureDigest(salt, value), salt, value };
}

/** True when `salt` and `value` open `digest`. A short salt, an unhashable value or a malformed digest is false. */
export function verifyDisclosure(input: { digest: unknown; salt: unknown; value: unknown }): boolean {
  if (typeof input.digest !== 'string' || typeof input.salt !== 'string' || input.salt.length < MIN_SALT_LENGTH) return false;
  try {
    return disclosureDigest(input.salt, input.value) === input.digest;
  } catch {
    return false;
  }
}
