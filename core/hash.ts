/** SHA-256 and document hashes (semantics §1): `sha256:` + hex of the canonical JSON without `hash` and `signature`. */
import { createHash } from 'node:crypto';
import { canonicalize } from './canonical.js';
import { withCanonicalBytes } from './json-bytes.js';

/** Members a document hash leaves out by default. */
export const DEFAULT_HASH_DROP: readonly string[] = ['hash', 'signature'];

/** Lowercase hex SHA-256 of `data` (a string is hashed as UTF-8). */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A copy of `doc` without the top-level members named in `drop`. */
export function withoutMembers(doc: Record<string, unknown>, drop: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(doc)) {
    if (drop.includes(key)) continue;
    if (key === '__proto__') Object.defineProperty(out, key, { value: doc[key], enumerable: true, writable: true, configurable: true });
    else out[key] = doc[key];
  }
  return out;
}

/** `sha256:` + hex SHA-256 of the canonical JSON of `doc` without the top-level members in `drop`. */
export function documentHash(doc: Record<string, unknown>, drop: readonly string[] = DEFAULT_HASH_DROP): string {
  const value = withoutMembers(doc, drop);
  // The canonical bytes straight into SHA-256; a value that is not exact JSON goes to the careful writer, which throws
  // with the JSON pointer and reason.
  const hex = withCanonicalBytes(value, sha256Hex) ?? sha256Hex(canonicalize(value));
  return `sha256:${hex}`;
}
