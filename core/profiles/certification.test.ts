import t from 'tap';
import { generateKeyFile, publicRecord } from '../keys.js';
import { signDocument } from '../signature.js';
import { checkCertification, checkCertificationSet } from './certification.js';

const authA = generateKeyFile({ kid: 'did:web:a.example#k1', actor: 'did:web:a.example', validFrom: '2025-01-01T00:00:00Z' });
const authB = generateKeyFile({ kid: 'did:web:b.example#k1', actor: 'did:web:b.example', validFrom: '2025-01-01T00:00:00Z' });
const keys = [publicRecord(authA), publicRecord(authB)];
const subjectHash = `sha256:${'2'.repeat(64)}`;
const NOW = '2026-06-01T00:00:00Z';

function cert(fields: Record<string, unknown>, key = authA, signedAt = '2026-01-01T00:00:00Z') {
  const authority = key === authA ? 'did:web:a.example' : 'did:web:b.example';
  return signDocument(
    {
      svc: '0.2.0',
      kind: 'Certification',
      id: 'c-1',
      scheme: 'halal',
      subject: { kind: 'recipe', hash: subjectHash },
      authority: { id: authority },
      status: 'valid',
      issuedAt: '2026-01-01T00:00:00Z',
      validFrom: '2026-01-01T00:00:00Z',
      validUntil: '2027-01-01T00:00:00Z',
      ...fields,
    },
    key,
    { signedAt },
  );
}

const reason = (c: unknown, extra: Record<string, unknown> = {}) =>
  checkCertification({ certification: c, keys, now: NOW, ...extra }).reason;

t.test('checks in order', async (t) => {
  t.equal(reason(cert({})), 'ok');
  t.equal(reason({ ...cert({}), kind: 'Recall' }), 'not_a_certification');
  t.equal(reason(null), 'not_a_certification');
  t.equal(reason({ ...cert({}), signature: undefined }), 'unsigned');
  t.equal(reason(cert({}), { keys: [publicRecord(authB)] }), 'unknown_key');
  t.equal(reason({ ...cert({}), validUntil: '2030-01-01T00:00:00Z' }), 'bad_signature', 'tampering shows as a bad signature');
  t.equal(reason({ ...cert({}), hash: 'sha256:junk' }), 'ok', 'the declared hash is never compared');
  t.equal(reason(cert({}, authA, '2024-12-31T23:59:59Z')), 'key_not_valid_at_signing_time');
  t.equal(reason(cert({}), { keys: [{ ...keys[0], revokedAt: '2025-12-01T00:00:00Z' }] }), 'key_revoked');
  t.equal(reason(cert({}), { keys: [{ ...keys[0], validFrom: 'soon' }] }), 'invalid_timestamp');
  t.equal(reason(cert({}), { keys: [{ ...keys[0], alg: 'ES256' }] }), 'alg_mismatch');
  t.equal(reason(cert({}), { subjectHash: `sha256:${'3'.repeat(64)}` }), 'subject_mismatch');
  t.equal(reason(cert({}), { subjectHash }), 'ok');
  t.equal(reason(cert({}), { subjectHash: '' }), 'ok', 'empty subjectHash skips the check');
  t.equal(reason(cert({}), { now: 'tomorrow' }), 'invalid_timestamp');
});

t.test('status and validity window', async (t) => {
  t.equal(reason(cert({ status: 'revoked' })), 'revoked');
  t.equal(reason(cert({ status: 'revoked', revokedAt: '2026-05-01T00:00:00Z' })), 'revoked');
  t.equal(reason(cert({ status: 'revoked', revokedAt: '2026-07-01T00:00:00Z' })), 'ok', 'a future revocation is not yet in force');
  t.equal(reason(cert({ status: 'revoked', revokedAt: '2026-07-01T00:00:00Z', validUntil: '2026-05-01T00:00:00Z' })), 'expired');
  t.equal(reason(cert({ status: 'revoked', revokedAt: 'whenever' })), 'invalid_timestamp');
  t.equal(reason(cert({ status: 'suspended' })), 'suspended');
  t.equal(reason(cert({ status: 'pending_review' })), 'ok', 'other statuses pass');
  t.equal(reason(cert({ validFrom: '2026-07-01T00:00:00Z' })), 'not_yet_valid');
  t.equal(reason(cert({ validUntil: '2026-05-31T23:59:59Z' })), 'expired');
  t.equal(reason(cert({ validUntil: '2026-06-01T02:00:00+02:00' })), 'ok', 'equal instant is still valid');
  t.equal(reason(cert({ validUntil: 'next year' })), 'invalid_timestamp');
  t.equal(reason(cert({ validUntil: '', validFrom: null })), 'ok', 'empty sides leave the window open');
  const clock = () => new Date('2028-01-01T00:00:00Z');
  t.equal(checkCertification({ certification: cert({}), keys }, clock).reason, 'expired', 'absent now uses the clock');
});

t.test('sets: supersession per authority and scheme', async (t) => {
  const old = cert({ id: 'a-old', issuedAt: '2026-01-01T00:00:00Z' });
  const fresh = cert({ id: 'a-new', issuedAt: '2026-03-01T00:00:00Z' });
  const vegan = cert({ id: 'a-vegan', scheme: 'vegan', issuedAt: '2025-06-01T00:00:00Z' });
  const other = cert({ id: 'b-1' }, authB);
  const newerButExpired = cert({ id: 'a-newest', issuedAt: '2026-04-01T00:00:00Z', validUntil: '2026-05-01T00:00:00Z' });
  const forged = { ...cert({ id: 'a-forged', issuedAt: '2026-05-01T00:00:00Z' }), scheme: 'halal ' };
  t.same(checkCertificationSet({ certifications: [fresh, old, vegan, other, newerButExpired, forged], keys, now: NOW, subjectHash }), {
    current: ['a-new', 'a-vegan', 'b-1'],
    rejected: { 'a-old': 'superseded', 'a-newest': 'expired', 'a-forged': 'bad_signature' },
  });
  const tieA = cert({ id: 't-1' });
  const tieB = cert({ id: 't-2' });
  t.same(
    checkCertificationSet({ certifications: [tieA, tieB], keys, now: NOW, subjectHash }).current,
    ['t-2'],
    'ties: later in input wins',
  );
  const dupBad = { ...cert({ id: 'dup' }), status: 'x' };
  t.same(
    checkCertificationSet({ certifications: [cert({ id: 'dup' }), dupBad], keys, now: NOW, subjectHash }),
    { current: [], rejected: { dup: 'bad_signature' } },
    'the later verdict applies to a shared id',
  );
  t.same(checkCertificationSet({ certifications: [], keys, now: NOW, subjectHash }), { current: [], rejected: {} });
});
