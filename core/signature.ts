/**
 * Document signatures (semantics §1). `sig` is unpadded base64url of the Ed25519 signature over the canonical
 * JSON of the header `{alg, hash, kid, signedAt, kind?}`, so a rebound kid or a backdated signedAt fails.
 */
import { decodeBase64url, encodeBase64url } from './base64url.js';
import { canonicalize } from './canonical.js';
import { signBytes, verifyBytes } from './ed25519.js';
import { DEFAULT_HASH_DROP, documentHash, withoutMembers } from './hash.js';
import type { KeyFile, KeyRecord } from './keys.js';
import { parseRfc3339, toRfc3339Seconds } from './time.js';

export interface Signature {
  alg: 'EdDSA';
  kid: string;
  signedAt: string;
  sig: string;
}

export type VerifyReason =
  | 'ok'
  | 'unsigned'
  | 'unsigned_time'
  | 'unknown_key'
  | 'alg_mismatch'
  | 'invalid_timestamp'
  | 'key_not_valid_at_signing_time'
  | 'key_revoked'
  | 'bad_signature';

/** The reasons of {@link checkSignature}: the verify reasons plus the reference's unsupported-algorithm reason. */
export type SignatureCheckReason = VerifyReason | 'alg_not_supported_by_reference';

const encoder = new TextEncoder();

/** The bytes a signature covers: the canonical JSON of the signing header. */
export function signingInput(header: { alg: string; hash: string; kid: string; signedAt: string; kind?: string | undefined }): Uint8Array {
  const h: Record<string, string> = { alg: header.alg, hash: header.hash, kid: header.kid, signedAt: header.signedAt };
  if (header.kind !== undefined) h.kind = header.kind;
  return encoder.encode(canonicalize(h));
}

function docKind(doc: Record<string, unknown>, kind: string | undefined): string | undefined {
  if (kind !== undefined) return kind;
  return typeof doc.kind === 'string' ? doc.kind : undefined;
}

/**
 * Sign `doc` with `key`: returns a copy with `hash` and `signature` set. `kind` defaults to `doc.kind` when it
 * is a string; `drop` names the members the hash leaves out (default `hash`, `signature`).
 */
export function signDocument<T extends Record<string, unknown>>(
  doc: T,
  key: KeyFile,
  opts: { kind?: string; signedAt?: string; drop?: readonly string[] } = {},
): T & { hash: string; signature: Signature } {
  const seed = decodeBase64url(key.privateKey);
  if (seed?.length !== 32) throw new Error('key file: "privateKey" must be base64url of a 32-byte seed');
  const signedAt = opts.signedAt ?? toRfc3339Seconds(new Date());
  if (!parseRfc3339(signedAt)) throw new Error(`signedAt ${JSON.stringify(signedAt)} is not an RFC 3339 time with offset`);
  const drop = opts.drop ?? DEFAULT_HASH_DROP;
  const hash = documentHash(doc, drop);
  const sig = signBytes(signingInput({ alg: 'EdDSA', hash, kid: key.kid, signedAt, kind: docKind(doc, opts.kind) }), seed);
  const signature: Signature = { alg: 'EdDSA', kid: key.kid, signedAt, sig: encodeBase64url(sig) };
  return { ...withoutMembers(doc, ['hash', 'signature']), hash, signature } as T & { hash: string; signature: Signature };
}

function nonEmpty(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

/** Loose key-record shape: records from the wire are checked field by field, never trusted as typed. */
type LooseKey = Record<string, unknown>;

/**
 * Check the signature of `doc` against `keys` in the exact order of semantics §1 (first failure wins) and
 * return the full reason, including `alg_not_supported_by_reference` for a non-EdDSA algorithm both sides name.
 */
export function checkSignature(
  doc: Record<string, unknown>,
  keys: readonly KeyRecord[] | readonly LooseKey[],
  opts: { kind?: string; drop?: readonly string[] } = {},
): { reason: SignatureCheckReason; hash: string } {
  let hash = '';
  try {
    hash = documentHash(doc, opts.drop ?? DEFAULT_HASH_DROP);
  } catch {
    hash = '';
  }
  const s = doc.signature;
  if (typeof s !== 'object' || s === null || Array.isArray(s) || Object.keys(s).length === 0) return { reason: 'unsigned', hash };
  const sig = s as Record<string, unknown>;
  if (!nonEmpty(sig.signedAt)) return { reason: 'unsigned_time', hash };
  const rec = (keys as readonly LooseKey[]).find((k) => typeof k === 'object' && k !== null && k.kid === sig.kid);
  if (!rec) return { reason: 'unknown_key', hash };
  if (rec.alg !== sig.alg) return { reason: 'alg_mismatch', hash };
  if (sig.alg !== 'EdDSA') return { reason: 'alg_not_supported_by_reference', hash };
  const signedAt = parseRfc3339(sig.signedAt);
  if (!signedAt) return { reason: 'invalid_timestamp', hash };
  const validFrom = parseRfc3339(rec.validFrom);
  if (!validFrom) return { reason: 'invalid_timestamp', hash };
  if (signedAt.epochMicros < validFrom.epochMicros) return { reason: 'key_not_valid_at_signing_time', hash };
  if (nonEmpty(rec.validTo)) {
    const validTo = parseRfc3339(rec.validTo);
    if (!validTo) return { reason: 'invalid_timestamp', hash };
    if (signedAt.epochMicros > validTo.epochMicros) return { reason: 'key_not_valid_at_signing_time', hash };
  }
  if (nonEmpty(rec.revokedAt)) {
    const revokedAt = parseRfc3339(rec.revokedAt);
    if (!revokedAt) return { reason: 'invalid_timestamp', hash };
    if (revokedAt.epochMicros <= signedAt.epochMicros) return { reason: 'key_revoked', hash };
  }
  if (hash === '' || typeof sig.kid !== 'string') return { reason: 'bad_signature', hash };
  const sigBytes = decodeBase64url(sig.sig);
  const pub = decodeBase64url(rec.publicKey);
  if (!sigBytes || !pub) return { reason: 'bad_signature', hash };
  let message: Uint8Array;
  try {
    message = signingInput({ alg: 'EdDSA', hash, kid: sig.kid, signedAt: sig.signedAt as string, kind: docKind(doc, opts.kind) });
  } catch {
    return { reason: 'bad_signature', hash };
  }
  return { reason: verifyBytes(sigBytes, message, pub) ? 'ok' : 'bad_signature', hash };
}

/** Verify `doc`'s signature against `keys` (semantics §1). `hash` is the document hash as computed here. */
export function verifyDocument(
  doc: Record<string, unknown>,
  keys: readonly KeyRecord[],
  opts: { kind?: string; drop?: readonly string[] } = {},
): { ok: boolean; reason: VerifyReason; hash: string } {
  const { reason, hash } = checkSignature(doc, keys, opts);
  const r: VerifyReason = reason === 'alg_not_supported_by_reference' ? 'alg_mismatch' : reason;
  return { ok: r === 'ok', reason: r, hash };
}
