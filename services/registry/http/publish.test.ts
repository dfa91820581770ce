import t from 'tap';
import { entry, idemKey, startHarness } from '../testing/fixtures.js';

t.test('publish: auth, idempotency, validation, conflicts, body limits', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const token = await h.prove('org.example');
  const good = entry('org.example/pack', '1.0.0', { description: 'A pack', tags: ['safety'] });

  const empty = await h.call('GET', '/v1/registry.json');
  t.equal(empty.status, 200);
  t.same(empty.body, { svc: '0.1.0', generatedAt: '2026-11-20T12:00:00.000Z', registry: h.url, entries: [] });

  const noToken = await h.call('POST', '/v1/registry/publish', { body: good, key: idemKey() });
  t.equal(noToken.status, 401);
  t.equal(noToken.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  t.match(noToken.body, { type: `${h.url}/errors/unauthorized`, title: String, status: 401 });
  t.match(noToken.headers.get('www-authenticate'), /^Bearer/);
  const badToken = await h.call('POST', '/v1/registry/publish', { body: good, key: idemKey(), token: 'svcreg_nope' });
  t.equal(badToken.status, 401);

  const noKey = await h.call('POST', '/v1/registry/publish', { body: good, token });
  t.equal(noKey.status, 400);
  t.match(noKey.body, { type: /idempotency-key-missing$/ });
  const shortKey = await h.call('POST', '/v1/registry/publish', { body: good, token, key: 'short' });
  t.equal(shortKey.status, 400);
  const longKey = await h.call('POST', '/v1/registry/publish', { body: good, token, key: 'k'.repeat(129) });
  t.equal(longKey.status, 400);

  const key = idemKey();
  h.clock.advance(1000);
  const pub = await h.call('POST', '/v1/registry/publish', { body: good, token, key });
  t.equal(pub.status, 201);
  t.match(pub.body, { ...good, status: 'active', publishedAt: '2026-11-20T12:00:01.000Z', verification: { method: 'dns_txt', by: h.url } });
  t.equal(pub.headers.get('location'), '/v1/registry/entries/org.example/pack');

  const replay = await h.call('POST', '/v1/registry/publish', { body: good, token, key });
  t.equal(replay.status, 201, 'same key and body replays the stored answer');
  t.same(replay.body, pub.body);
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  const reused = await h.call('POST', '/v1/registry/publish', { body: { ...good, version: '1.0.1' }, token, key });
  t.equal(reused.status, 422);
  t.match(reused.body, { type: /idempotency-key-reused$/ });

  const dup = await h.call('POST', '/v1/registry/publish', { body: good, token, key: idemKey() });
  t.equal(dup.status, 409);
  t.match(dup.body, { type: /\/errors\/conflict$/, detail: /never reused/ });
  t.notOk('valid' in dup.body, 'a 409 is a problem document, not a ValidationResult');

  const other = await h.call('POST', '/v1/registry/publish', { body: entry('org.other/pack', '1.0.0'), token, key: idemKey() });
  t.equal(other.status, 422);
  t.match(other.headers.get('content-type'), /^application\/problem\+json/, 'a refused publish is a problem document');
  t.match(other.body, { type: `${h.url}/errors/validation-failed`, status: 422, title: 'Request failed validation' });
  t.same(other.body.issues, [
    { code: 'namespace_unproven', path: '/name', message: 'the publish token does not cover the namespace org.other; prove it first' },
  ]);
  t.same(other.body.valid, false);

  const bad = await h.call('POST', '/v1/registry/publish', {
    body: {
      kind: 'rule_pack',
      url: 'https://x.example/a',
      name: 'Org.Example/Pack',
      version: '^1.0',
      sha256: 'sha256:abc',
      extra: 1,
      status: 'recalled',
    },
    token,
    key: idemKey(),
  });
  t.equal(bad.status, 422);
  t.equal(bad.body.valid, false);
  const codes = bad.body.issues.map((i: { code: string; path: string }) => `${i.code} ${i.path}`).sort();
  t.same(codes, ['hash /sha256', 'name /name', 'schema /extra', 'schema /status', 'version /version']);
  t.match(bad.body.issues.find((i: { code: string }) => i.code === 'name').message, /not_lower_case/);
  t.match(bad.body.issues.find((i: { code: string }) => i.code === 'version').message, /range_not_allowed/);

  const tag = await h.call('POST', '/v1/registry/validate', { body: entry('org.example/pack', 'latest') });
  t.match(tag.body.issues, [{ code: 'version', path: '/version', message: /tag_not_allowed/ }]);
  const missing = await h.call('POST', '/v1/registry/validate', { body: { url: 'https://x.example/' } });
  t.same(missing.body.issues.map((i: { path: string }) => i.path).sort(), ['/kind', '/name', '/sha256', '/version']);

  const malformed = await h.call('POST', '/v1/registry/publish', { raw: '{"kind": "rule_pack",', token, key: idemKey() });
  t.equal(malformed.status, 400);
  t.match(malformed.body, { type: /invalid-json$/ });
  const dupKeys = await h.call('POST', '/v1/registry/validate', { raw: '{"kind":"a","kind":"b"}' });
  t.equal(dupKeys.status, 400, 'duplicate keys are malformed JSON');
  const huge = await h.call('POST', '/v1/registry/publish', { body: { ...good, 'x-pad': 'x'.repeat(70_000) }, token, key: idemKey() });
  t.equal(huge.status, 413);
  t.match(huge.body, { type: /payload-too-large$/ });
  const notObject = await h.call('POST', '/v1/registry/publish', { body: [1, 2], token, key: idemKey() });
  t.equal(notObject.status, 422);
  t.match(notObject.body, {
    type: /\/errors\/validation-failed$/,
    valid: false,
    issues: [{ code: 'schema', path: '', message: 'a registry entry must be a JSON object' }],
  });

  const doc = await h.call('GET', '/v1/registry.json');
  t.equal(doc.body.entries.length, 1);
  t.equal(doc.body.generatedAt, '2026-11-20T12:00:01.000Z');
  const etag = doc.headers.get('etag') as string;
  t.match(etag, /^"[0-9a-f]{32}"$/);
  t.not(etag, empty.headers.get('etag'), 'a change changes the ETag');
  const same = await h.call('GET', '/v1/registry.json', { headers: { 'if-none-match': etag } });
  t.equal(same.status, 304, 'unchanged: 304');
  await h.call('POST', '/v1/registry/publish', { body: { ...good, version: '2.0.0' }, token, key: idemKey() });
  const changed = await h.call('GET', '/v1/registry.json', { headers: { 'if-none-match': etag } });
  t.equal(changed.status, 200, 'changed since: the new document');
  t.equal(changed.body.entries.length, 2);
});

t.test('validate: duplicate, namespace proof status, no token needed', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const unproven = await h.call('POST', '/v1/registry/validate', { body: entry('org.example/pack', '1.0.0') });
  t.equal(unproven.status, 200);
  t.same(unproven.body, {
    valid: false,
    issues: [{ code: 'namespace_unproven', path: '/name', message: 'the namespace org.example has not been proven on this registry' }],
  });
  const token = await h.prove('org.example');
  const ok = await h.call('POST', '/v1/registry/validate', { body: entry('org.example/pack', '1.0.0') });
  t.same(ok.body, { valid: true, issues: [] });
  await h.call('POST', '/v1/registry/publish', { body: entry('org.example/pack', '1.0.0'), token, key: idemKey() });
  const dup = await h.call('POST', '/v1/registry/validate', { body: entry('org.example/pack', '1.0.0') });
  t.match(dup.body, { valid: false, issues: [{ code: 'duplicate', path: '/version' }] });
  const otherToken = await h.prove('org.other');
  const withToken = await h.call('POST', '/v1/registry/validate', { body: entry('org.example/pack', '2.0.0'), token: otherToken });
  t.match(withToken.body, { valid: false, issues: [{ code: 'namespace_unproven' }] }, 'a given token is checked against the namespace');
  const admin = await h.call('POST', '/v1/registry/publish', {
    body: entry('org.unproven/x', '1.0.0'),
    token: h.adminToken,
    key: idemKey(),
  });
  t.equal(admin.status, 201, 'an operator token publishes anywhere');
  t.notOk('verification' in admin.body, 'but the entry claims no verification it did not have');
});
