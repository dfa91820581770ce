import t from 'tap';
import { generateKeyFile, type KeyFile, publicRecord } from './keys.js';
import { checkSignature, signDocument, verifyDocument } from './signature.js';

const key: KeyFile = {
  kid: 'did:web:hub.example#seq-1',
  alg: 'EdDSA',
  publicKey: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
  actor: 'hub:home',
  validFrom: '2026-01-01T00:00:00Z',
  privateKey: Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex').toString('base64url'),
};
const recall = { kind: 'Recall', id: 'rc-001', issuedAt: '2026-10-04T10:00:00Z', targets: [{ ref: 'cw:cookwala.ai:shakshuka' }] };

t.test('signs like the public reference (same header, same bytes)', async (t) => {
  const signed = signDocument(recall, key, { signedAt: '2026-10-04T10:00:00Z' });
  // The public vector sig-valid carries exactly this signature for this document and key.
  t.equal(signed.signature.sig, 'aGE0Ll4aJnUjrm0HGJnYaGVk7FihL46SCccT4IuvBVaB4z156HITVG5oWKVM6KDo_XnOPhMOjDNIhg_22Q1aDA');
  t.match(signed.hash, /^sha256:[0-9a-f]{64}$/);
  t.same(verifyDocument(signed, [publicRecord(key)]), { ok: true, reason: 'ok', hash: signed.hash });
  t.equal(verifyDocument({ ...signed, hash: 'sha256:00' }, [key]).reason, 'ok', 'the declared hash is not signed over');
});

t.test('verification order of semantics §1', async (t) => {
  const signed = signDocument(recall, key, { signedAt: '2026-10-04T10:00:00Z' });
  const sig = signed.signature;
  const keys: Record<string, unknown>[] = [{ ...publicRecord(key) }];
  const reason = (doc: Record<string, unknown>, ks: readonly Record<string, unknown>[] = keys) => verifyDocument(doc, ks as never).reason;
  t.equal(reason(recall), 'unsigned');
  t.equal(reason({ ...recall, signature: {} }), 'unsigned');
  t.equal(reason({ ...recall, signature: null }), 'unsigned');
  t.equal(reason({ ...recall, signature: { ...sig, signedAt: '' } }), 'unsigned_time');
  t.equal(reason({ ...recall, signature: { ...sig, kid: 'did:web:other#k' } }), 'unknown_key');
  t.equal(reason(signed, [{ ...keys[0], alg: 'ES256' }]), 'alg_mismatch');
  t.equal(reason({ ...signed, signature: { ...sig, alg: 'ES256' } }), 'alg_mismatch');
  t.equal(reason({ ...signed, signature: { ...sig, signedAt: '2026-10-04' } }), 'invalid_timestamp');
  t.equal(reason(signed, [{ ...keys[0], validFrom: 'then' }]), 'invalid_timestamp', 'unreadable key times fail closed');
  t.equal(reason(signed, [{ ...keys[0], validFrom: '2026-10-05T00:00:00Z' }]), 'key_not_valid_at_signing_time');
  t.equal(reason(signed, [{ ...keys[0], validTo: '2026-10-04T09:59:59Z' }]), 'key_not_valid_at_signing_time');
  t.equal(reason(signed, [{ ...keys[0], validTo: '2026-10-04T10:00:00Z' }]), 'ok', 'validTo is inclusive');
  t.equal(reason(signed, [{ ...keys[0], revokedAt: '2026-10-04T10:00:00Z' }]), 'key_revoked', 'revokedAt == signedAt is revoked');
  t.equal(reason(signed, [{ ...keys[0], revokedAt: '2026-10-04T12:00:00+02:00' }]), 'key_revoked', 'compared as instants');
  t.equal(reason(signed, [{ ...keys[0], revokedAt: '2026-10-04T10:00:01Z' }]), 'ok');
  t.equal(reason({ ...signed, id: 'rc-002' }), 'bad_signature', 'tampered body');
  t.equal(reason({ ...signed, signature: { ...sig, signedAt: '2026-10-04T09:00:00Z' } }), 'bad_signature', 'backdated');
  t.equal(reason({ ...signed, signature: { ...sig, sig: 'AAAA' } }), 'bad_signature', 'short signature');
  t.equal(reason({ ...signed, signature: { ...sig, sig: `${sig.sig}==` } }), 'bad_signature', 'padded signature');
  t.equal(reason({ ...signed, n: Number.NaN }), 'bad_signature', 'unhashable document');
  t.equal(verifyDocument(signed, [publicRecord(key)], { kind: 'Manifest' }).reason, 'bad_signature', 'kind is bound');
  const rebound = [{ ...keys[0], kid: 'did:web:evil#k' }];
  t.equal(reason({ ...signed, signature: { ...sig, kid: 'did:web:evil#k' } }, rebound), 'bad_signature', 'rebinding the kid');
  t.equal(
    checkSignature({ ...signed, signature: { ...sig, alg: 'ES256' } }, [{ ...keys[0], alg: 'ES256' }]).reason,
    'alg_not_supported_by_reference',
  );
});

t.test('sign options: kind and drop', async (t) => {
  const k = generateKeyFile({ kid: 'k', actor: 'a', validFrom: '2026-01-01T00:00:00Z' });
  const ev = signDocument({ seq: 0, prev: 'genesis', proposedBy: 'x' }, k, { kind: 'Event', drop: ['hash', 'signature', 'proposedBy'] });
  t.equal(verifyDocument(ev, [publicRecord(k)], { kind: 'Event', drop: ['hash', 'signature', 'proposedBy'] }).reason, 'ok');
  t.equal(
    verifyDocument({ ...ev, proposedBy: 'y' }, [publicRecord(k)], { kind: 'Event', drop: ['hash', 'signature', 'proposedBy'] }).reason,
    'ok',
  );
  t.equal(verifyDocument(ev, [publicRecord(k)]).reason, 'bad_signature', 'no kind in header when verifying without one');
  t.throws(() => signDocument(recall, k, { signedAt: 'now' }), /signedAt/);
  t.throws(() => signDocument(recall, { ...k, privateKey: 'x' }), /privateKey/);
  const resigned = signDocument({ ...recall, hash: 'old', signature: { stale: true } }, k);
  t.equal(verifyDocument(resigned, [publicRecord(k)]).reason, 'ok', 're-signing replaces an old signature');
});
