import t from 'tap';
import { verifyDocument } from '../../../core/signature.js';
import { validate } from '../../../schemas/index.js';
import { entry, idemKey, startHarness } from '../testing/fixtures.js';

t.test('status changes, tombstones, search and the signed recall feed', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const token = await h.prove('org.example');
  for (const [name, version, kind, description] of [
    ['org.example/pack', '1.0.0', 'rule_pack', 'Basic food safety rules'],
    ['org.example/pack', '1.1.0', 'rule_pack', 'Basic food safety rules, revised'],
    ['org.example/oven', '2.0.0', 'device', 'Capabilities of a demo oven'],
  ] as const) {
    h.clock.advance(1000);
    const r = await h.call('POST', '/v1/registry/publish', { body: entry(name, version, { kind, description }), token, key: idemKey() });
    t.equal(r.status, 201);
  }
  const names = (list: { name: string; version: string }[]) => list.map((e) => `${e.name}@${e.version}`);

  const all = await h.call('GET', '/v1/registry/entries');
  t.same(names(all.body), ['org.example/oven@2.0.0', 'org.example/pack@1.1.0', 'org.example/pack@1.0.0'], 'newest first');
  t.same(names((await h.call('GET', '/v1/registry/entries?kind=device')).body), ['org.example/oven@2.0.0']);
  t.same(names((await h.call('GET', '/v1/registry/entries?q=FOOD%20SAFETY')).body), ['org.example/pack@1.1.0', 'org.example/pack@1.0.0']);
  t.same(names((await h.call('GET', '/v1/registry/entries?q=ov')).body), ['org.example/oven@2.0.0'], 'short q');
  t.same((await h.call('GET', '/v1/registry/entries?q=nothing-matches')).body, []);
  t.same(names((await h.call('GET', '/v1/registry/entries?limit=1')).body), ['org.example/oven@2.0.0']);
  for (const bad of [`q=${'a'.repeat(201)}`, 'status=gone', 'include_deleted=yes', 'limit=0', 'limit=5000', 'sort=name', 'kind=a&kind=b']) {
    const r = await h.call('GET', `/v1/registry/entries?${bad}`);
    t.equal(r.status, 400, bad);
    t.match(r.body, { type: /bad-request$/ });
  }
  t.equal((await h.call('GET', `/v1/registry/entries?q=${'a'.repeat(200)}`)).status, 200, 'q of 200 characters is allowed');

  const missing = await h.call('GET', '/v1/registry/entries/org.example/nope');
  t.equal(missing.status, 404);
  t.match(missing.body, { type: /not-found$/, title: String, detail: /org.example\/nope/ });

  const patch = (body: unknown, tok = token, path = 'org.example/pack') =>
    h.call('PATCH', `/v1/registry/entries/${path}/status`, { body, token: tok, key: idemKey() });
  t.equal(
    (await h.call('PATCH', '/v1/registry/entries/org.example/pack/status', { body: { status: 'deprecated' }, token })).status,
    400,
    'key required',
  );
  t.equal(
    (await h.call('PATCH', '/v1/registry/entries/org.example/pack/status', { body: { status: 'deprecated' }, key: idemKey() })).status,
    401,
  );
  const otherToken = await h.prove('org.other');
  const forbidden = await patch({ status: 'deleted' }, otherToken);
  t.equal(forbidden.status, 403);
  t.match(forbidden.body, { type: /forbidden$/ });
  t.equal((await patch({ status: 'retired' })).status, 422);
  t.equal((await patch({ status: 'deprecated', message: 'm'.repeat(501) })).status, 422);
  t.equal((await patch({ status: 'deprecated', version: '9.9.9' })).status, 404);
  t.equal((await patch({ status: 'deprecated' }, token, 'org.example/ghost')).status, 404);

  h.clock.advance(1000);
  const dep = await patch({ status: 'deprecated', version: '1.0.0', message: 'Use 1.1.0' });
  t.equal(dep.status, 200);
  t.match(dep.body, {
    name: 'org.example/pack',
    status: 'deprecated',
    updated: [{ version: '1.0.0', status: 'deprecated', 'x-status': { message: 'Use 1.1.0' } }],
  });
  t.equal(dep.body.updated.length, 1, 'only the named version');
  t.same(names((await h.call('GET', '/v1/registry/entries?status=deprecated')).body), ['org.example/pack@1.0.0']);

  const before = await h.call('GET', '/v1/recalls?since=0');
  t.same(before.body, []);
  h.clock.advance(1000);
  const rec = await patch({ status: 'recalled', message: 'Wrong oil limit' });
  t.equal(rec.status, 200);
  t.equal(rec.body.updated.length, 2, 'all versions when version is omitted');
  t.match(rec.body.recall, { kind: 'Recall', seq: 1, severity: 'high', detail: 'Wrong oil limit', issuer: h.url });
  t.same(rec.body.recall.entries.map((x: { name: string; version: string }) => `${x.name}@${x.version}`).sort(), [
    'org.example/pack@1.0.0',
    'org.example/pack@1.1.0',
  ]);
  t.same(rec.body.recall.targets, [], 'a rule pack names no recipes');
  const again = await patch({ status: 'recalled' });
  t.same(again.body.updated, [], 'already recalled: nothing changes');
  t.notOk('recall' in again.body, 'and no second recall');

  const feed = await h.call('GET', '/v1/recalls.json');
  t.equal(feed.body.recalls.length, 1);
  const keys = (await h.call('GET', '/v1/registry/keys.json')).body.keys;
  t.same(keys, feed.body.keys);
  const verified = verifyDocument(feed.body.recalls[0], keys, { kind: 'Recall' });
  t.same(verified.reason, 'ok', 'the recall is signed with the registry key, kind Recall');
  const tampered = { ...feed.body.recalls[0], detail: 'nothing to see' };
  t.equal(verifyDocument(tampered, keys, { kind: 'Recall' }).reason, 'bad_signature');
  t.same((await h.call('GET', '/v1/recalls?since=1')).body, [], 'by sequence number');
  t.same((await h.call('GET', '/v1/recalls')).body, feed.body.recalls);
  t.same((await h.call('GET', '/v1/recalls?since=2026-11-20T12:00:04.999Z')).body, feed.body.recalls, 'by time (Core API form)');
  t.same((await h.call('GET', '/v1/recalls?since=2026-11-20T14:00:05%2B02:00')).body, [], 'offsets are honoured');
  t.same((await h.call('GET', '/v1/recalls?since=2026-11-20T12:00:05Z')).body, [], 'strictly after');
  for (const bad of ['-1', 'soon', '2026-11-20', '2026-02-30T00:00:00Z'])
    t.equal((await h.call('GET', `/v1/recalls?since=${bad}`)).status, 400, bad);

  h.clock.advance(1000);
  const del = await patch({ status: 'deleted', version: '1.0.0' });
  t.match(del.body.updated, [{ version: '1.0.0', status: 'deleted', 'x-status': { changedAt: '2026-11-20T12:00:06.000Z' } }]);
  t.same(names((await h.call('GET', '/v1/registry/entries?q=pack')).body), ['org.example/pack@1.1.0'], 'tombstone hidden from search');
  t.same(names((await h.call('GET', '/v1/registry/entries?q=pack&include_deleted=true')).body), [
    'org.example/pack@1.1.0',
    'org.example/pack@1.0.0',
  ]);
  t.same(
    names((await h.call('GET', '/v1/registry/entries?status=deleted')).body),
    ['org.example/pack@1.0.0'],
    'an explicit status=deleted shows tombstones',
  );
  const lookup = await h.call('GET', '/v1/registry/entries/org.example/pack');
  t.same(
    lookup.body.map((e: { version: string; status: string }) => `${e.version}:${e.status}`),
    ['1.1.0:recalled', '1.0.0:deleted'],
    'lookup lists tombstones',
  );
  const reuse = await h.call('POST', '/v1/registry/publish', { body: entry('org.example/pack', '1.0.0'), token, key: idemKey() });
  t.equal(reuse.status, 409, 'a deleted version is never reused');
  const reactivate = await patch({ status: 'active', version: '1.0.0' });
  t.match(reactivate.body.updated, [{ status: 'active' }]);

  const doc = await h.call('GET', '/v1/registry.json');
  t.same(
    doc.body.entries.map((e: { name: string; version: string; status: string }) => `${e.name}@${e.version}:${e.status}`),
    ['org.example/pack@1.0.0:active', 'org.example/pack@1.1.0:recalled', 'org.example/oven@2.0.0:active'],
  );
  t.equal(doc.body.generatedAt, '2026-11-20T12:00:06.000Z', 'regenerated after the last change');
  for (const e of doc.body.entries)
    t.same(validate.registryEntry(e), { valid: true, issues: [] }, `served entry ${e.name}@${e.version} fits the schema`);
});
