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
  /** Set with `fork_detected`: two checkpoints of one mission at one seq disagree on the head. */
  fork?: true;
  /** With `fork_detected` and keys given: the fork's checkpoints whose sequencer signature fails, and why. */
  unverified?: UnverifiedCheckpoint[];
}

export interface UnverifiedCheckpoint {
  /** Index in the checkpoint list. */
  checkpoint: number;
  reason: string;
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

/** Two checkpoints of one mission at one seq with different heads: where, and which two (indexes in the list). */
export interface Fork {
  mission: unknown;
  seq: number;
  checkpoints: [number, number];
}

/**
 * Two checkpoints of one mission at one seq with different heads: two histories were shown (semantics §1: anyone
 * holding both can tell). Found from the checkpoints alone, no key needed; whether each was signed by its
 * sequencer is a separate question (verifyLedger answers it when keys are given). The first fork found, or null.
 */
export function findFork(checkpoints: readonly unknown[]): Fork | null {
  const first = new Map<string, number>();
  for (let i = 0; i < checkpoints.length; i++) {
    const cp = checkpoints[i];
    if (!isObject(cp) || typeof cp.seq !== 'number' || typeof cp.head !== 'string') continue;
    const slot = `${JSON.stringify(cp.mission ?? null)}@${cp.seq}`;
    const j = first.get(slot);
    if (j === undefined) first.set(slot, i);
    else if ((checkpoints[j] as Doc).head !== cp.head) return { mission: cp.mission ?? null, seq: cp.seq, checkpoints: [j, i] };
  }
  return null;
}

/**
 * The sequencer signature of each checkpoint of a fork, checked against the keys: the ones that fail, with why
 * (`checkpoint_<signature reason>`, `checkpoint_unknown_key` for a key not supplied). Empty when both verify.
 */
export function unverifiedForkCheckpoints(checkpoints: readonly unknown[], fork: Fork, keys: Keys): UnverifiedCheckpoint[] {
  const out: UnverifiedCheckpoint[] = [];
  for (const i of fork.checkpoints) {
    const r = checkSignature(checkpoints[i] as Doc, keys, { kind: 'Checkpoint', drop: CHECKPOINT_HASH_DROP });
    if (r.reason !== 'ok') out.push({ checkpoint: i, reason: `checkpoint_${r.reason}` });
  }
  return out;
}

/**
 * Fork evidence first, from the checkpoints alone: two checkpoints of one mission at one seq with different heads
 * are `fork_detected` (with `fork: true`) whatever events or keys we hold, a missing key included. When keys are
 * given, the two checkpoints' sequencer signatures are checked too and the ones that fail are listed in
 * `unverified` (by index in the checkpoint list): a fork between a good and a forged checkpoint is still reported,
 * with the forged one named. Then the events, then each checkpoint against them. With no events given, a
 * checkpoint's head cannot be checked: only its signatures and witnesses are.
 */
export function verifyLedger(input: { events?: readonly unknown[]; keys: Keys; checkpoints?: readonly unknown[] }): LedgerResult {
  const checkpoints = input.checkpoints ?? [];
  const fork = findFork(checkpoints);
  if (fork !== null) {
    const unverified = input.keys.length > 0 ? unverifiedForkCheckpoints(checkpoints, fork, input.keys) : [];
    return { ok: false, fork: true, reason: 'fork_detected', ...(unverified.length > 0 ? { unverified } : {}) };
  }
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
