import t from 'tap';
import { generateKeyFile, type KeyFile, publicRecord } from './keys.js';
import {
  eventHash,
  findFork,
  GENESIS,
  nextEvent,
  signCheckpoint,
  verifyChain,
  verifyCheckpoint,
  verifyLedger,
  witnessCheckpoint,
} from './ledger.js';

const seq = generateKeyFile({ kid: 'did:web:hub.example#seq-1', actor: 'hub:home', validFrom: '2026-01-01T00:00:00Z' });
const grocer = generateKeyFile({ kid: 'did:web:grocer.example#k1', actor: 'grocer:a', validFrom: '2026-01-01T00:00:00Z' });
const keys = [publicRecord(seq), publicRecord(grocer)];

type Ev = Record<string, unknown>;

function chain(n: number, key: KeyFile = seq): Ev[] {
  const events: Ev[] = [];
  for (let i = 0; i < n; i++) {
    events.push(
      nextEvent(
        events,
        { mission: 'm-7', at: `2026-10-04T17:0${i}:00Z`, actor: 'hub:home', type: `step_${i}` },
        key,
        `2026-10-04T17:0${i}:00Z`,
      ),
    );
  }
  return events;
}

t.test('a chain built with nextEvent verifies', async (t) => {
  const events = chain(4);
  t.equal(events[0]?.prev, GENESIS);
  t.equal(events[2]?.prev, events[1]?.hash);
  t.same(verifyChain(events, keys), { ok: true, reason: 'ok', head: events[3]?.hash });
  t.same(verifyChain([], keys), { ok: true, reason: 'ok', head: GENESIS });
  t.equal(eventHash({ ...events[1], proposedBy: 'agent:x' } as Ev), events[1]?.hash, 'proposedBy is outside the hash');
  t.equal(verifyChain([events[0], { ...events[1], proposedBy: 'agent:x' }] as Ev[], keys).reason, 'ok');
});

t.test('failures name the first bad index', async (t) => {
  const events = chain(4);
  const at = (i: number, change: Ev) => events.map((e, j) => (j === i ? { ...e, ...change } : e));
  t.equal(verifyChain(at(2, { seq: 3 }), keys).reason, 'seq_gap_at_2');
  t.equal(verifyChain([events[0], events[2]] as Ev[], keys).reason, 'seq_gap_at_1', 'a dropped event');
  t.equal(verifyChain(at(2, { prev: events[0]?.hash }), keys).reason, 'broken_link_at_2');
  t.equal(verifyChain(at(0, { prev: 'sha256:00' }), keys).reason, 'broken_link_at_0');
  t.equal(verifyChain(at(2, { actor: 'mallory' }), keys).reason, 'hash_mismatch_at_2');
  t.equal(verifyChain(at(3, { n: Number.NaN }), keys).reason, 'hash_mismatch_at_3');
  t.equal(verifyChain(at(1, { signature: undefined }), keys).reason, 'unsigned_at_1');
  t.equal(verifyChain(chain(3), [publicRecord(grocer)]).reason, 'unknown_key_at_0');
  const revoked = [{ ...publicRecord(seq), revokedAt: '2026-10-04T17:01:30Z' }];
  t.equal(verifyChain(events, revoked).reason, 'key_revoked_at_2');
  t.equal(verifyChain([events[0], 'junk'] as unknown[], keys).reason, 'seq_gap_at_1');
  // Re-signing an edited event with a different key of the same kid is a bad signature, not a hash mismatch.
  const forger = generateKeyFile({ kid: seq.kid, actor: 'x', validFrom: '2026-01-01T00:00:00Z' });
  const forged = nextEvent(events.slice(0, 2), { mission: 'm-7', type: 'forged' }, forger, '2026-10-04T17:02:00Z');
  t.equal(verifyChain([events[0], events[1], forged] as Ev[], keys).reason, 'bad_signature_at_2');
});

function checkpointFor(events: Ev[], seqNo: number) {
  return signCheckpoint(
    { mission: 'm-7', seq: seqNo, head: events[seqNo]?.hash as string, at: '2026-10-04T18:00:00Z', sequencer: 'hub:home' },
    seq,
  );
}

t.test('checkpoints: head, signatures, independent witness', async (t) => {
  const events = chain(3);
  const hashes = events.map((e) => e.hash as string);
  const cp = checkpointFor(events, 2);
  t.equal(verifyCheckpoint(cp, hashes, keys).reason, 'no_independent_witness', 'unwitnessed');
  const self = { ...cp, witnesses: [witnessCheckpoint(cp, seq, '2026-10-04T18:01:00Z')] };
  t.equal(verifyCheckpoint(self, hashes, keys).reason, 'no_independent_witness', 'self-witnessed');
  const witnessed = {
    ...cp,
    witnesses: [witnessCheckpoint(cp, seq, '2026-10-04T18:01:00Z'), witnessCheckpoint(cp, grocer, '2026-10-04T18:02:00Z')],
  };
  t.same(verifyCheckpoint(witnessed, hashes, keys), { ok: true, reason: 'ok' });
  t.same(verifyLedger({ events, keys, checkpoints: [witnessed] }), { ok: true, reason: 'ok', head: hashes[2] });
  const earlier = checkpointFor(events, 1);
  const earlierWitnessed = { ...earlier, witnesses: [witnessCheckpoint(earlier, grocer, '2026-10-04T18:03:00Z')] };
  t.equal(verifyLedger({ events, keys, checkpoints: [earlierWitnessed] }).reason, 'ok', 'a checkpoint of an earlier seq');
  t.equal(verifyCheckpoint({ ...witnessed, head: hashes[1] }, hashes, keys).reason, 'head_mismatch');
  t.equal(verifyCheckpoint({ ...witnessed, seq: 9 }, hashes, keys).reason, 'head_mismatch', 'seq beyond the chain');
  t.equal(verifyCheckpoint({ ...witnessed, at: '2026-10-04T19:00:00Z' }, hashes, keys).reason, 'checkpoint_bad_signature');
  const w = witnessed.witnesses[1] as unknown as { signature: Record<string, unknown> };
  const badWitness = {
    ...witnessed,
    witnesses: [witnessed.witnesses[0], { ...w, signature: { ...w.signature, signedAt: '2026-10-04T18:09:00Z' } }],
  };
  t.equal(verifyCheckpoint(badWitness, hashes, keys).reason, 'witness_bad_signature_at_1');
  t.equal(verifyCheckpoint('nope', hashes, keys).reason, 'head_mismatch');
});

t.test('a rewritten history: head_mismatch against the old checkpoint, fork_detected between two checkpoints', async (t) => {
  const events = chain(3);
  const cp = checkpointFor(events, 2);
  const witnessed = { ...cp, witnesses: [witnessCheckpoint(cp, grocer, '2026-10-04T18:02:00Z')] };
  const rewritten = [events[0], events[1]] as Ev[];
  rewritten.push(nextEvent(rewritten, { mission: 'm-7', type: 'rewritten' }, seq, '2026-10-04T17:02:00Z'));
  t.equal(verifyChain(rewritten, keys).reason, 'ok', 'internally valid');
  t.equal(verifyLedger({ events: rewritten, keys, checkpoints: [witnessed] }).reason, 'head_mismatch');
  const cp2 = checkpointFor(rewritten, 2);
  t.equal(verifyLedger({ events: rewritten, keys, checkpoints: [witnessed, cp2] }).reason, 'fork_detected');
  const unsignedFork = { ...cp2, signature: { ...cp2.signature, sig: 'AAAA' } };
  t.same(findFork([witnessed, cp2]), { mission: 'm-7', seq: 2, checkpoints: [0, 1] });
  t.same(
    verifyLedger({ keys: [], checkpoints: [witnessed, cp2] }),
    { ok: false, fork: true, reason: 'fork_detected' },
    'no key records: the two heads alone prove the fork',
  );
  t.same(
    verifyLedger({ keys, checkpoints: [witnessed, unsignedFork] }),
    { ok: false, fork: true, reason: 'fork_detected', unverified: [{ checkpoint: 1, reason: 'checkpoint_bad_signature' }] },
    'with keys: the fork, and which checkpoint fails its signature',
  );
  t.same(
    verifyLedger({ keys: keys.filter((k) => k.kid !== seq.kid), checkpoints: [witnessed, cp2] }).unverified,
    [
      { checkpoint: 0, reason: 'checkpoint_unknown_key' },
      { checkpoint: 1, reason: 'checkpoint_unknown_key' },
    ],
    'a missing key does not hide the fork',
  );
  const other = signCheckpoint(
    { mission: 'm-8', seq: 2, head: cp2.head as string, at: '2026-10-04T18:00:00Z', sequencer: 'hub:home' },
    seq,
  );
  t.equal(findFork([witnessed, other]), null, 'other missions are other histories');
  t.equal(findFork([witnessed, witnessed]), null, 'the same head twice is one history');
  t.equal(
    verifyLedger({ events: chain(3).map((e, i) => (i === 1 ? { ...e, seq: 5 } : e)), keys, checkpoints: [witnessed] }).reason,
    'seq_gap_at_1',
    'chain errors come before checkpoint checks',
  );
  const gapped = chain(3).map((e, i) => (i === 1 ? { ...e, seq: 5 } : e));
  t.equal(
    verifyLedger({ events: gapped, keys, checkpoints: [witnessed, cp2] }).reason,
    'fork_detected',
    'a fork shows over a broken chain',
  );
  t.equal(verifyLedger({ keys, checkpoints: [witnessed, cp2] }).reason, 'fork_detected', 'a fork shows from checkpoints alone');
  t.same(verifyLedger({ keys, checkpoints: [witnessed] }), { ok: true, reason: 'ok' }, 'checkpoints alone: signatures and witnesses');
  t.equal(verifyLedger({ keys, checkpoints: [cp2] }).reason, 'no_independent_witness');
  t.equal(verifyLedger({ keys, checkpoints: [unsignedFork] }).reason, 'checkpoint_bad_signature');
  t.equal(verifyLedger({ keys, checkpoints: ['nope'] }).reason, 'checkpoint_unsigned');
});
