import t from 'tap';
import { documentHash, sha256Hex, withoutMembers } from './hash.js';

t.test('sha256Hex', async (t) => {
  t.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  t.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  t.equal(sha256Hex(new TextEncoder().encode('abc')), sha256Hex('abc'));
  t.equal(sha256Hex('é'), sha256Hex(new Uint8Array([0xc3, 0xa9])), 'strings hash as UTF-8');
});

t.test('documentHash drops hash and signature, and only at the top level', async (t) => {
  const doc = { kind: 'Recall', id: 'x', nested: { hash: 'kept' } };
  const h = documentHash(doc);
  t.equal(h, `sha256:${sha256Hex('{"id":"x","kind":"Recall","nested":{"hash":"kept"}}')}`);
  t.equal(documentHash({ ...doc, hash: 'sha256:0', signature: { sig: 'x' } }), h);
  t.not(documentHash({ ...doc, nested: {} }), h);
  t.equal(documentHash({ ...doc, proposedBy: 'a' }, ['hash', 'signature', 'proposedBy']), h, 'custom drop list');
  t.not(documentHash({ ...doc, hash: 'x' }, []), h, 'empty drop list keeps everything');
  t.same(withoutMembers({ a: 1, b: 2 }, ['b']), { a: 1 });
  t.throws(() => documentHash({ n: Number.NaN }), { code: 'non_finite_number' });
});
