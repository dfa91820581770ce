/**
 * Vectors written for this project, in the public format, for every kind: they test the rules (inputs the
 * public set does not have), not the list. Each vector is also run with a wrong `expected` to prove it can fail.
 */
import t from 'tap';
import { generateKeyFile, publicRecord } from '../../core/keys.js';
import { nextEvent, signCheckpoint, witnessCheckpoint } from '../../core/ledger.js';
import { signDocument } from '../../core/signature.js';
import { defaultContext, runVector } from '../runner.js';
import type { Vector } from '../types.js';

const ctx = defaultContext(() => new Date('2026-10-05T12:00:00Z'));
const hub = generateKeyFile({ kid: 'did:web:hub.test#k', actor: 'hub:test', validFrom: '2026-01-01T00:00:00Z' });
const peer = generateKeyFile({ kid: 'did:web:peer.test#k', actor: 'peer:test', validFrom: '2026-01-01T00:00:00Z' });
const keys = [publicRecord(hub), publicRecord(peer)];

const events: Record<string, unknown>[] = [];
for (let i = 0; i < 4; i++) events.push(nextEvent(events, { mission: 'm-1', type: `e${i}` }, hub, `2026-10-04T10:0${i}:00Z`));
const broken = events.map((e, i) => (i === 2 ? { ...e, prev: events[0]?.hash } : e));
const cp = signCheckpoint(
  { mission: 'm-1', seq: 3, head: events[3]?.hash as string, at: '2026-10-04T11:00:00Z', sequencer: 'hub:test' },
  hub,
);
const witnessed = { ...cp, witnesses: [witnessCheckpoint(cp, peer, '2026-10-04T11:05:00Z')] };
const recall = signDocument({ kind: 'Recall', id: 'rc-9', issuedAt: '2026-10-01T00:00:00Z' }, hub, { signedAt: '2026-10-01T00:00:00Z' });
const certification = signDocument(
  {
    kind: 'Certification',
    id: 'c-9',
    scheme: 'kosher',
    subject: { hash: 'sha256:ab' },
    authority: { id: 'peer' },
    status: 'valid',
    issuedAt: '2026-01-01',
    validUntil: '2026-12-31T00:00:00Z',
  },
  peer,
  { signedAt: '2026-02-01T00:00:00Z' },
);
const forkedCp = signCheckpoint({ ...cp, head: events[2]?.hash } as never, hub);
const stranger = generateKeyFile({ kid: 'did:web:stranger.test#k', actor: 'stranger:test', validFrom: '2026-01-01T00:00:00Z' });
/** A fork's answer: two checkpoints of mission m-1 at seq 3 with different heads, shown by the checkpoints alone. */
const FORK = { fork: true, reason: 'fork_detected' };
const fryer = { capabilities: { ops: [{ op: 'cw.op.deep_fry' }, { op: 'cw.op.simmer' }], sensors: [{ sensor: 'cw.sense.oil_temp' }] } };

// Expected hashes were computed by a second implementation (Python hashlib over the canonical text).
const v = (id: string, kind: string, input: unknown, expected: unknown): Vector => ({ id, kind, input, expected });

const vectors: Vector[] = [
  v(
    'hash-nested-sort',
    'hash',
    { b: [{ d: 1, c: 2 }], a: 'é' },
    { canonical: '{"a":"é","b":[{"c":2,"d":1}]}', hash: 'sha256:f35f0dd2a65665a1241f1b787da96afe8204fdce87765af8a1c306f920ec7260' },
  ),
  v(
    'hash-drops-top-level-hash-and-signature',
    'hash',
    {
      title: 'Tea',
      svc: '0.2.0',
      steps: [{ id: 's1', hash: 'sha256:kept' }],
      hash: 'sha256:stale',
      signature: { alg: 'EdDSA', kid: 'k', signedAt: '2026-01-01T00:00:00Z', sig: 'AAAA' },
    },
    {
      canonical: '{"steps":[{"hash":"sha256:kept","id":"s1"}],"svc":"0.2.0","title":"Tea"}',
      hash: 'sha256:1ef403b683dec5699d6e650912819a4de17ca6ec27cf3e4ff1e1e5d7889ab60d',
    },
  ),
  v('hash-nan-refused', 'hash', { n: Number.NaN }, { error: 'non_finite_number' }),
  v(
    'sig-rfc8032-test2',
    'signature',
    { seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb', messageHex: '72' },
    {
      publicKey: 'PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw',
      signatureHex:
        '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
    },
  ),
  v('sig-ok', 'signature', { document: recall, keys }, { ok: true, reason: 'ok' }),
  v(
    'sig-backdated',
    'signature',
    { document: { ...recall, signature: { ...recall.signature, signedAt: '2026-09-01T00:00:00Z' } }, keys },
    { ok: false, reason: 'bad_signature' },
  ),
  v(
    'sig-key-expired',
    'signature',
    { document: recall, keys: [{ ...keys[0], validTo: '2026-09-01T00:00:00Z' }] },
    { ok: false, reason: 'key_not_valid_at_signing_time' },
  ),
  v('disclosure-short-salt', 'disclosure', { digest: 'sha256:00', salt: 'short', value: 1 }, { ok: false }),
  v('ledger-ok-4', 'ledger', { events, keys }, { ok: true, reason: 'ok', head: events[3]?.hash }),
  v('ledger-broken-link-at-2', 'ledger', { events: broken, keys }, { ok: false, reason: 'broken_link_at_2' }),
  v('ledger-witnessed', 'ledger', { events, keys, checkpoint: witnessed }, { ok: true, reason: 'ok' }),
  v('ledger-unwitnessed', 'ledger', { events, keys, checkpoint: cp }, { ok: false, reason: 'no_independent_witness' }),
  v('ledger-fork', 'ledger', { events, keys, checkpoints: [witnessed, forkedCp] }, FORK),
  v('ledger-fork-checkpoints-only', 'ledger', { keys, checkpoints: [witnessed, forkedCp] }, FORK),
  v('ledger-fork-over-a-broken-chain', 'ledger', { events: broken, keys, checkpoints: [forkedCp, witnessed] }, FORK),
  v('ledger-fork-without-keys', 'ledger', { checkpoints: [witnessed, forkedCp] }, FORK),
  v('ledger-fork-empty-key-list', 'ledger', { keys: [], checkpoint: witnessed, checkpoints: [forkedCp] }, FORK),
  v(
    'ledger-fork-sequencer-key-missing',
    'ledger',
    { keys: [publicRecord(peer)], checkpoints: [witnessed, forkedCp] },
    {
      ...FORK,
      unverified: [
        { checkpoint: 0, reason: 'checkpoint_unknown_key' },
        { checkpoint: 1, reason: 'checkpoint_unknown_key' },
      ],
    },
  ),
  v(
    'ledger-fork-one-checkpoint-forged',
    'ledger',
    { keys, checkpoints: [witnessed, { ...forkedCp, signature: { ...forkedCp.signature, sig: 'AAAA' } }] },
    { ...FORK, unverified: [{ checkpoint: 1, reason: 'checkpoint_bad_signature' }] },
  ),
  v(
    'ledger-fork-signed-by-a-stranger',
    'ledger',
    { keys, checkpoints: [signCheckpoint({ ...cp, head: events[1]?.hash } as never, stranger), witnessed] },
    { ...FORK, unverified: [{ checkpoint: 0, reason: 'checkpoint_unknown_key' }] },
  ),
  v('ledger-same-head-twice-is-no-fork', 'ledger', { keys, checkpoints: [witnessed, witnessed] }, { ok: true, reason: 'ok' }),
  v(
    'ledger-other-mission-same-seq-is-no-fork',
    'ledger',
    { keys, checkpoints: [witnessed, { ...forkedCp, mission: 'm-2' }] },
    { ok: false, reason: 'checkpoint_bad_signature' },
  ),
  v('ledger-checkpoints-only-no-fork', 'ledger', { keys, checkpoints: [witnessed] }, { ok: true, reason: 'ok' }),
  v('units-l-to-cup', 'units', { value: 1.2, unit: 'l', to: 'cup' }, { value: 5 }),
  v('units-g-to-tbsp', 'units', { value: 30, unit: 'g', to: 'tbsp', density: 2 }, { value: 1 }),
  v('units-cup-to-g-no-density', 'units', { value: 1, unit: 'cup', to: 'g' }, { error: 'needs_density' }),
  v('units-g-to-ml-zero-density', 'units', { value: 100, unit: 'g', to: 'ml', density: 0 }, { error: 'needs_density' }),
  v('units-degc-to-g', 'units', { value: 100, unit: 'degC', to: 'g', density: 1 }, { error: 'incompatible_units' }),
  v('units-unknown-unit', 'units', { value: 1, unit: 'furlong', to: 'm' }, { error: 'unknown_unit' }),
  v('units-both-tolerances', 'units', { quantity: { value: 1, unit: 'g', tolerance: 0.1, toleranceAbs: 1 } }, { schemaValid: false }),
  v('exec-paused-running', 'execution_transition', { from: 'paused', to: 'running' }, { allowed: true }),
  v('exec-completed-running', 'execution_transition', { from: 'completed', to: 'running' }, { allowed: false }),
  v('mission-closing-closed-executor', 'mission_transition', { from: 'closing', to: 'closed', role: 'executor' }, { allowed: false }),
  v('mission-degraded-paused-initiator', 'mission_transition', { from: 'degraded', to: 'paused', role: 'initiator' }, { allowed: true }),
  v('registry-name-two-slashes', 'registry_name', { name: 'org.example/a/b' }, { valid: false, reason: 'one_slash_required' }),
  v('registry-name-short', 'registry_name', { name: 'ab' }, { valid: false, reason: 'length' }),
  v('registry-version-latest', 'registry_version', { version: 'latest' }, { exact: false, reason: 'tag_not_allowed' }),
  v('registry-version-prerelease', 'registry_version', { version: '2.0.0-rc.1' }, { exact: true, reason: 'ok' }),
  v(
    'sms-menu-protein',
    'sms_parse',
    { text: 'menu d7 protein31.5' },
    { ok: true, command: 'MENU', distribution: 'D7', perMeal: { proteinG: 31.5 } },
  ),
  v('sms-cancel-extra', 'sms_parse', { text: 'CANCEL A7K NOW' }, { ok: false, error: 'usage' }),
  v(
    'signal-fine-region',
    'signal_policy',
    { signal: { kind: 'SupplySignal', ingredientClass: 'x-a.b', openToAll: true, region: { admin2: 'X' } } },
    { ok: false, reasons: ['region_too_fine'] },
  ),
  v('cert-other-key', 'certification', { certification: certification, keys, now: '2026-06-01T00:00:00Z' }, { ok: true, reason: 'ok' }),
  v(
    'cert-expired-later',
    'certification',
    { certification: certification, keys, now: '2027-01-01T00:00:00Z' },
    { ok: false, reason: 'expired' },
  ),
  v(
    'certset-one',
    'certification_set',
    { certifications: [certification], keys, now: '2026-06-01T00:00:00Z' },
    { current: ['c-9'], rejected: {} },
  ),
  v(
    'disclosure-delivery',
    'disclosure_policy',
    { facets: [{ facet: 'cw.facet.space.access_points' }], recipientRole: 'delivery' },
    {
      constraints: [{ type: 'access_point', derivedFrom: ['cw.facet.space.access_points'] }],
      disclosed: [],
      withheld: [],
    },
  ),
  v(
    'envelope-deep-fry-overheats',
    'envelope',
    {
      op: 'cw.op.deep_fry',
      readings: [
        { t: 0, tempC: 150 },
        { t: 10, tempC: 175 },
        { t: 20, tempC: 205 },
      ],
      target: null,
    },
    {
      envelopeOk: false,
      targetOk: null,
      reason: 'left_envelope',
    },
  ),
  v(
    'ladder-deep-fry-no-oil-sensor',
    'envelope',
    { op: 'cw.op.deep_fry', sensors: [], allowModel: true, humanPresent: true },
    { choice: null },
  ),
  v(
    'dryrun-nobody-home',
    'dryrun',
    {
      recipe: { process: { nodes: [{ id: 'n1', op: 'cw.op.deep_fry', params: { oilTempC: 175 } }] } },
      capabilities: fryer,
      humanPresent: false,
    },
    {
      state: 'refused',
      reason: 'needs_human_present',
      by: [],
    },
  ),
  v(
    'dryrun-string-temperature',
    'dryrun',
    {
      recipe: { process: { nodes: [{ id: 'n1', op: 'cw.op.deep_fry', params: { oilTempC: '175' } }] } },
      capabilities: fryer,
      humanPresent: true,
    },
    {
      state: 'refused',
      reason: 'envelope_out_of_range',
      by: [],
    },
  ),
  v(
    'dryrun-plan-as-far-as-it-got',
    'dryrun',
    {
      recipe: {
        process: {
          nodes: [
            { id: 'n1', op: 'cw.op.simmer' },
            { id: 'n2', op: 'cw.op.legacy_step', params: { sourceStep: 2 } },
            { id: 'n3', op: 'cw.op.deep_fry', params: { oilTempC: 260 } },
            { id: 'n4', op: 'cw.op.simmer' },
          ],
        },
      },
      capabilities: fryer,
      humanPresent: true,
    },
    {
      state: 'refused',
      reason: 'envelope_out_of_range',
      by: ['device', 'human'],
    },
  ),
  v(
    'trust-faulty-sensor',
    'sensor_trust',
    {
      capabilities: { capabilities: { sensors: [{ sensor: 'cw.sense.oil_temp', state: 'fault' }] } },
      op: 'cw.op.deep_fry',
      humanPresent: true,
      allowModel: true,
      now: '2026-10-05T00:00:00Z',
    },
    { choice: null },
  ),
  v(
    'trust-list',
    'sensor_trust',
    {
      capabilities: {
        capabilities: { sensors: [{ sensor: 'b' }, { sensor: 'a', calibration: { validUntil: '2026-01-01T00:00:00Z' } }, { sensor: 'c' }] },
      },
      now: '2026-10-05T00:00:00Z',
    },
    { trusted: ['b', 'c'] },
  ),
  v(
    'plausible-within-accuracy',
    'plausibility',
    {
      readings: [
        { sensor: 'a', tempC: 170 },
        { sensor: 'b', tempC: 174.5 },
      ],
      sensors: [
        { sensor: 'a', accuracy: 1.5 },
        { sensor: 'b', accuracy: 2 },
      ],
    },
    { ok: true, reason: 'ok' },
  ),
  v(
    'implausible-default-accuracy',
    'plausibility',
    {
      readings: [
        { sensor: 'a', tempC: 170 },
        { sensor: 'b', tempC: 175.5 },
      ],
      sensors: [],
    },
    { ok: false, reason: 'implausible' },
  ),
];

t.test('every kind has vectors here', async (t) => {
  const kinds = new Set(vectors.map((x) => x.kind));
  for (const k of [
    'hash',
    'signature',
    'disclosure',
    'units',
    'ledger',
    'envelope',
    'dryrun',
    'execution_transition',
    'mission_transition',
    'certification',
    'certification_set',
    'disclosure_policy',
    'registry_name',
    'registry_version',
    'sensor_trust',
    'plausibility',
    'signal_policy',
    'sms_parse',
  ]) {
    t.ok(kinds.has(k), k);
  }
});

for (const vec of vectors) {
  t.test(vec.id, async (t) => {
    const r = runVector(vec, ctx);
    t.ok(r.passed, `expected ${JSON.stringify(vec.expected)} got ${JSON.stringify(r.got ?? r.error)}`);
    const wrong = runVector({ ...vec, expected: { ...(vec.expected as object), 'x-wrong': true } }, ctx);
    t.notOk(wrong.passed, 'a different expected fails');
  });
}

t.test('unknown kinds and bad inputs fail, never skip', async (t) => {
  const unknown = runVector(v('x', 'teleport', {}, {}), ctx);
  t.notOk(unknown.passed);
  t.match(unknown.error, /unknown kind "teleport"/);
  t.notOk(runVector(v('proto', 'toString', {}, {}), ctx).passed, 'prototype names are not kinds');
  const bad = runVector(v('bad-units', 'units', { value: 'one', unit: 'cup', to: 'ml' }, { value: 240 }), ctx);
  t.notOk(bad.passed);
  t.match(bad.error, /units input/);
  const conv = runVector(v('bad-conv', 'units', { value: 1, unit: 'cup', to: 'g' }, { value: 1 }), ctx);
  t.equal(conv.error, undefined, 'a refused conversion is an answer, not a thrown message');
  t.same(conv.got, { error: 'needs_density' }, 'never a guess');
  t.notOk(conv.passed);
  t.match(runVector(v('bad-ledger', 'ledger', { events: 'x' }, {}), ctx).error, /events/);
  t.match(runVector(v('empty-ledger', 'ledger', { keys }, {}), ctx).error, /events or checkpoints/);
  t.match(runVector(v('bad-now', 'sensor_trust', { capabilities: {}, now: 'later' }, {}), ctx).error, /RFC 3339/);
});
