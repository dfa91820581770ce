/**
 * Event chains and checkpoints (semantics §1).
 *
 * Event i has `seq == i`, `prev` = `"genesis"` for the first and the previous event's hash after that, a
 * `hash` over the event without `hash`, `signature` and `proposedBy`, and a signature of kind `Event`. A
 * checkpoint `{mission, seq, head, at, sequencer, signature, witnesses[]}` names the event hash at `seq`; the
 * sequencer and every witness sign the checkpoint hash (without `signature` and `witnesses`) with kind
 * `Checkpoint`, and at least one witness must sign with a kid other than the sequencer's.
 */
import { documentHash } from './hash.js';
import type { KeyFile, KeyRecord } from './keys.js';
import { checkSignature, type Signature, signDocument } from './signature.js';
import { toRfc3339Seconds } from './time.js';

export const GENESIS = 'genesis';
export const EVENT_HASH_DROP: readonly string[] = ['hash', 'signature', 'proposedBy'];
export const CHECKPOINT_HASH_DROP: readonly string[] = ['signature', 'witnesses'];

export interface LedgerResult {
  ok: boolean;
  /** `ok`, or the first failure: `seq_gap_at_i`, `broken_link_at_i`, `hash_mismatch_at_i`, `<signature reason>_at_i`,
   * `fork_detected`, `head_mismatch`, `checkpoint_<signature reason>`, `witness_<signature reason>_at_j`, `no_independent_witness`. */
  reason: string;
  /** Hash of the last event (`genesis` for an empty chain), on success only. */
  head?: string;
}

type Doc = Record<string, unknown>;
type Keys = readonly KeyRecord[] | readonly Doc[];

function isObject(v: unknown): v is Doc {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function safeHash(doc: Doc, drop: readonly string[]): string | null {
  try {
    return documentHash(doc, drop);
  } catch {
    return null;
  }
}

export function eventHash(event: Doc): string {
  return documentHash(event, EVENT_HASH_DROP);
}

export function checkpointHash(checkpoint: Doc): string {
  return documentHash(checkpoint, CHECKPOINT_HASH_DROP);
}

/** Verify a chain of events in order; the first failing event decides the reason. */
export function verifyChain(events: readonly unknown[], keys: Keys): LedgerResult {
  let prev = GENESIS;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (!isObject(e) || e.seq !== i) return { ok: false, reason: `seq_gap_at_${i}` };
    if (e.prev !== prev) return { ok: false, reason: `broken_link_at_${i}` };
    const h = safeHash(e, EVENT_HASH_DROP);
    if (h === null || e.hash !== h) return { ok: false, reason: `hash_mismatch_at_${i}` };
    const sig = checkSignature(e, keys, { kind: 'Event', drop: EVENT_HASH_DROP });
    if (sig.reason !== 'ok') return { ok: false, reason: `${sig.reason}_at_${i}` };
    prev = h;
  }
  return { ok: true, reason: 'ok', head: prev };
}

function sequencerKid(cp: Doc): unknown {
  return isObject(cp.signature) ? cp.signature.kid : undefined;
}

/** Verify one checkpoint against the verified event hashes (index = seq). */
export function verifyCheckpoint(cp: unknown, eventHashes: readonly string[], keys: Keys): LedgerResult {
  if (!isObject(cp)) return { ok: false, reason: 'head_mismatch' };
  const at = typeof cp.seq === 'number' && Number.isInteger(cp.seq) && cp.seq >= 0 ? eventHashes[cp.seq] : undefined;
  if (at === undefined || cp.head !== at) return { ok: false, reason: 'head_mismatch' };
  return verifyCheckpointSignatures(cp, keys);
}

/** A checkpoint's sequencer signature and witnesses, without looking at any event. */
export function verifyCheckpointSignatures(cp: unknown, keys: Keys): LedgerResult {
  if (!isObject(cp)) return { ok: false, reason: 'checkpoint_unsigned' };
  const seqSig = checkSignature(cp, keys, { kind: 'Checkpoint', drop: CHECKPOINT_HASH_DROP });
  if (seqSig.reason !== 'ok') return { ok: false, reason: `checkpoint_${seqSig.reason}` };
  const witnesses = Array.isArray(cp.witnesses) ? cp.witnesses : [];
  let independent = false;
  for (let j = 0; j < witnesses.length; j++) {
    const w = witnesses[j];
    const signature = isObject(w) ? w.signature : undefined;
    const r = checkSignature({ ...cp, signature }, keys, { kind: 'Checkpoint', drop: CHECKPOINT_HASH_DROP });
    if (r.reason !== 'ok') return { ok: false, reason: `witness_${r.reason}_at_${j}` };
    if (isObject(signature) && signature.kid !== sequencerKid(cp)) independent = true;
  }
  if (!independent) return { ok: false, reason: 'no_independent_witness' };
  return { ok: true, reason: 'ok' };
}

/**
 * Two validly signed checkpoints of one mission at one seq with different heads: the sequencer showed two
 * histories. Returns the seq of the first fork found, or null.
 */
export function findFork(checkpoints: readonly unknown[], keys: Keys): number | null {
  const heads = new Map<string, unknown>();
  for (const cp of checkpoints) {
    if (!isObject(cp) || typeof cp.seq !== 'number') continue;
    if (checkSignature(cp, keys, { kind: 'Checkpoint', drop: CHECKPOINT_HASH_DROP }).reason !== 'ok') continue;
    const slot = `${JSON.stringify(cp.mission ?? null)}@${cp.seq}`;
    if (heads.has(slot) && heads.get(slot) !== cp.head) return cp.seq;
    if (!heads.has(slot)) heads.set(slot, cp.head);
  }
  return null;
}

/**
 * Fork evidence first, from the checkpoints alone (two validly signed checkpoints of one mission at one seq with
 * different heads prove two histories, whatever events we hold), then the events, then each checkpoint against
 * them. With no events given, a checkpoint's head cannot be checked: only its signatures and witnesses are.
 */
export function verifyLedger(input: { events?: readonly unknown[]; keys: Keys; checkpoints?: readonly unknown[] }): LedgerResult {
  const checkpoints = input.checkpoints ?? [];
  if (findFork(checkpoints, input.keys) !== null) return { ok: false, reason: 'fork_detected' };
  if (input.events === undefined) {
    for (const cp of checkpoints) {
      const r = verifyCheckpointSignatures(cp, input.keys);
      if (!r.ok) return r;
    }
    return { ok: true, reason: 'ok' };
  }
  const chain = verifyChain(input.events, input.keys);
  if (!chain.ok) return chain;
  const hashes = input.events.map((e) => (e as Doc).hash as string);
  for (const cp of checkpoints) {
    const r = verifyCheckpoint(cp, hashes, input.keys);
    if (!r.ok) return r;
  }
  return chain;
}

/** Append a signed event to `events` (returns the new event; the array is not changed). */
export function nextEvent(
  events: readonly Doc[],
  body: Doc,
  key: KeyFile,
  signedAt = toRfc3339Seconds(new Date()),
): Doc & { hash: string; signature: Signature } {
  const last = events[events.length - 1];
  const prev = last === undefined ? GENESIS : (last.hash as string);
  const { hash: _h, signature: _s, ...rest } = body;
  return signDocument({ ...rest, seq: events.length, prev }, key, { kind: 'Event', signedAt, drop: EVENT_HASH_DROP });
}

/** Sign a checkpoint as its sequencer (witnesses start empty). */
export function signCheckpoint(
  cp: { mission: string; seq: number; head: string; at: string; sequencer: string },
  key: KeyFile,
  signedAt = cp.at,
): Doc & { signature: Signature; witnesses: Doc[] } {
  const signed = signDocument({ ...cp }, key, { kind: 'Checkpoint', signedAt, drop: CHECKPOINT_HASH_DROP });
  const { hash: _h, ...withoutHash } = signed;
  return { ...withoutHash, witnesses: [] };
}

/** A witness's countersignature `{actor, at, signature}` over a checkpoint. */
export function witnessCheckpoint(
  cp: Doc,
  key: KeyFile,
  at = toRfc3339Seconds(new Date()),
): { actor: string; at: string; signature: Signature } {
  const { signature } = signDocument(cp, key, { kind: 'Checkpoint', signedAt: at, drop: CHECKPOINT_HASH_DROP });
  return { actor: key.actor, at, signature };
}
