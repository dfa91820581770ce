import t from 'tap';
import { idemKey, startHarness } from '../testing/fixtures.js';

const listing = (id: string) => ({
  kind: 'DirectoryEntry',
  id,
  name: 'Example Kitchens',
  roles: ['device_maker'],
  country: 'EG',
  url: 'https://example.org',
});

t.test('directory: validate, publish organizations only, verification status', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const token = await h.prove('org.example');
  const empty = await h.call('GET', '/v1/directory.json');
  t.match(empty.body, { svc: '0.1.0', generatedAt: String, entries: [] });

  const bad = await h.call('POST', '/v1/directory/validate', {
    body: { kind: 'DirectoryEntry', id: 'someone', name: '', roles: [], country: 'eg', conformance: ['badge.png'] },
  });
  t.equal(bad.status, 200);
  t.equal(bad.body.valid, false);
  t.same(bad.body.issues.map((i: { path: string }) => i.path).sort(), ['/conformance/0', '/country', '/id', '/name', '/roles']);
  t.ok(bad.body.issues.every((i: { code: string }) => i.code === 'schema'));

  t.same((await h.call('POST', '/v1/directory/validate', { body: listing('did:web:example.org') })).body, { valid: true, issues: [] });
  const unproven = await h.call('POST', '/v1/directory/validate', { body: listing('did:web:other.org') });
  t.match(unproven.body.issues, [{ code: 'namespace_unproven', path: '/id' }]);
  const person = await h.call('POST', '/v1/directory/validate', { body: listing('did:web:alice.github.io') });
  t.match(person.body.issues, [{ code: 'semantics', path: '/id', message: /organizations only/ }]);

  t.equal((await h.call('POST', '/v1/directory/publish', { body: listing('did:web:example.org'), key: idemKey() })).status, 401);
  t.equal((await h.call('POST', '/v1/directory/publish', { body: listing('did:web:example.org'), token })).status, 400);
  const other = await h.call('POST', '/v1/directory/publish', { body: listing('did:web:other.org'), token, key: idemKey() });
  t.equal(other.status, 422);
  t.match(other.body, { valid: false, issues: [{ code: 'namespace_unproven' }] });

  const pub = await h.call('POST', '/v1/directory/publish', {
    body: { ...listing('did:web:example.org'), conformance: [`sha256:${'a'.repeat(64)}`] },
    token,
    key: idemKey(),
  });
  t.equal(pub.status, 201);
  t.match(pub.body, {
    id: 'did:web:example.org',
    status: 'active',
    addedAt: '2026-11-20T12:00:00.000Z',
    verification: { method: 'dns_txt', by: h.url },
  });
  h.clock.advance(60_000);
  const upd = await h.call('POST', '/v1/directory/publish', {
    body: { ...listing('did:web:example.org'), name: 'Example Kitchens Ltd' },
    token,
    key: idemKey(),
  });
  t.equal(upd.status, 200, 'a second publish updates the listing');
  t.match(upd.body, { name: 'Example Kitchens Ltd', addedAt: '2026-11-20T12:00:00.000Z', updatedAt: '2026-11-20T12:01:00.000Z' });

  const gln = await h.call('POST', '/v1/directory/publish', { body: listing('gln:1234567890123'), token, key: idemKey() });
  t.equal(gln.status, 422);
  const vouched = await h.call('POST', '/v1/directory/publish', {
    body: listing('gln:1234567890123'),
    token: h.adminToken,
    key: idemKey(),
  });
  t.equal(vouched.status, 201);
  t.match(vouched.body.verification, { method: 'vouched_by_program' });

  const dir = await h.call('GET', '/v1/directory.json');
  t.same(
    dir.body.entries.map((e: { id: string; name: string }) => `${e.id} ${e.name}`),
    ['did:web:example.org Example Kitchens Ltd', 'gln:1234567890123 Example Kitchens'],
  );
});
