/** Kinds over the crypto core: hash, signature, disclosure, ledger. */
import { encodeBase64url } from '../../core/base64url.js';
import { CanonicalJsonError, canonicalize } from '../../core/canonical.js';
import { verifyDisclosure } from '../../core/disclosure.js';
import { publicKeyOf, signBytes } from '../../core/ed25519.js';
import { DEFAULT_HASH_DROP, documentHash, withoutMembers } from '../../core/hash.js';
import { verifyLedger } from '../../core/ledger.js';
import { checkSignature } from '../../core/signature.js';
import { type KindHandler, VectorInputError } from '../types.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function keysOf(input: Record<string, unknown>): Record<string, unknown>[] {
  if (input.keys === undefined) return [];
  if (!Array.isArray(input.keys)) throw new VectorInputError('input.keys must be an array of key records');
  return input.keys.filter(isObject);
}

/**
 * `{canonical, hash}` of the input document, both without its top-level `hash` and `signature` (semantics §1);
 * a value canonical JSON refuses gives `{error: <code>}`.
 */
const hash: KindHandler = (input) => {
  try {
    return { canonical: canonicalize(withoutMembers(input, DEFAULT_HASH_DROP)), hash: documentHash(input) };
  } catch (err) {
    if (err instanceof CanonicalJsonError) return { error: err.code };
    throw err;
  }
};

function hexBytes(v: unknown, what: string): Uint8Array {
  if (typeof v !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(v)) throw new VectorInputError(`${what} must be hex`);
  return new Uint8Array(Buffer.from(v, 'hex'));
}

/** Raw Ed25519 (`{seed, messageHex}` → `{publicKey, signatureHex}`) or a document check (`{document, keys}` → `{ok, reason}`). */
const signature: KindHandler = (input) => {
  if (input.seed !== undefined) {
    const seed = hexBytes(input.seed, 'input.seed');
    if (seed.length !== 32) throw new VectorInputError('input.seed must be 32 bytes');
    const message = hexBytes(input.messageHex ?? '', 'input.messageHex');
    return { publicKey: encodeBase64url(publicKeyOf(seed)), signatureHex: Buffer.from(signBytes(message, seed)).toString('hex') };
  }
  if (!isObject(input.document)) throw new VectorInputError('input.document must be an object');
  const opts = typeof input.kind === 'string' ? { kind: input.kind } : {};
  const { reason } = checkSignature(input.document, keysOf(input), opts);
  return { ok: reason === 'ok', reason };
};

const disclosure: KindHandler = (input) => ({ ok: verifyDisclosure({ digest: input.digest, salt: input.salt, value: input.value }) });

/**
 * The vector format's answer, no more: `{ok, reason, head?}` for a bare chain (`head` only when it holds), and
 * `{ok, reason}` once checkpoints are involved. Events may be left out when checkpoints are given: a fork shows
 * from the checkpoints alone, as `{fork: true, reason: "fork_detected"}` (keys or none), with `unverified`
 * naming the fork's checkpoints whose sequencer signature fails when keys are given.
 */
const ledger: KindHandler = (input) => {
  const checkpoints: unknown[] = [];
  if (input.checkpoint !== undefined && input.checkpoint !== null) checkpoints.push(input.checkpoint);
  if (input.checkpoints !== undefined) {
    if (!Array.isArray(input.checkpoints)) throw new VectorInputError('input.checkpoints must be an array');
    checkpoints.push(...input.checkpoints);
  }
  if (input.events === undefined && checkpoints.length === 0) throw new VectorInputError('input needs events or checkpoints');
  if (input.events !== undefined && !Array.isArray(input.events)) throw new VectorInputError('input.events must be an array');
  const events = input.events as unknown[] | undefined;
  const r = verifyLedger({ ...(events === undefined ? {} : { events }), keys: keysOf(input), checkpoints });
  if (r.fork === true) return { fork: true, reason: r.reason, ...(r.unverified === undefined ? {} : { unverified: r.unverified }) };
  if (checkpoints.length > 0 || !r.ok || r.head === undefined) return { ok: r.ok, reason: r.reason };
  return { ok: r.ok, reason: r.reason, head: r.head };
};

export const cryptoKinds: Record<string, KindHandler> = { hash, signature, disclosure, ledger };
