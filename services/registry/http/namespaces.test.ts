import t from 'tap';
import { entry, idemKey, startHarness } from '../testing/fixtures.js';

t.test('namespace proof over HTTP: dns, well-known, oidc, and token scope', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());

  t.same((await h.call('GET', '/v1/namespaces/org.example')).body, { namespace: 'org.example', proven: false });
  const noChallenge = await h.call('POST', '/v1/namespaces/org.example/verify', { body: { method: 'dns' } });
  t.equal(noChallenge.status, 404);
  t.match(noChallenge.body, { detail: /no open dns challenge/ });

  const c = await h.call('POST', '/v1/namespaces/org.example/challenge', { body: { method: 'dns' } });
  t.equal(c.status, 201);
  t.match(c.body, { namespace: 'org.example', domain: 'example.org', method: 'dns_txt', token: /^[A-Za-z0-9_-]{32}$/ });
  t.same(c.body.instructions, { type: 'TXT', name: 'example.org', value: `svc-verify=${c.body.token}` });
  h.dns.setTxt('example.org', ['svc-verify=someone-elses-token']);
  const wrong = await h.call('POST', '/v1/namespaces/org.example/verify', { body: { method: 'dns' } });
  t.equal(wrong.status, 422);
  t.match(wrong.body, { type: /namespace-proof-failed$/, detail: /no TXT record/ });
  t.same((await h.call('GET', '/v1/namespaces/org.example')).body.proven, false, 'a failed proof proves nothing');
  h.dns.setTxt('example.org', [`svc-verify=${c.body.token}`]);
  const ok = await h.call('POST', '/v1/namespaces/org.example/verify', { body: { method: 'dns' } });
  t.equal(ok.status, 201);
  t.match(ok.body, { token: /^svcreg_/, namespaces: ['org.example'], method: 'dns_txt' });
  const used = await h.call('POST', '/v1/namespaces/org.example/verify', { body: { method: 'dns' } });
  t.equal(used.status, 404, 'a challenge is used once');

  const wk = await h.call('POST', '/v1/namespaces/net.bakery/challenge', { body: { method: 'well-known' } });
  t.equal(wk.status, 201);
  t.same(wk.body.instructions, { url: `${h.web.base}/bakery.net/.well-known/svc-verify`, body: wk.body.token });
  h.web.set('/bakery.net/.well-known/svc-verify', `${wk.body.token}\n`, 'text/plain');
  const wkOk = await h.call('POST', '/v1/namespaces/net.bakery/verify', { body: { method: 'well-known' }, token: ok.body.token });
  t.equal(wkOk.status, 201);
  t.same(wkOk.body.namespaces, ['net.bakery', 'org.example'], 'a token sent along is extended');

  const expired = await h.call('POST', '/v1/namespaces/org.late/challenge', { body: { method: 'dns' } });
  h.dns.setTxt('late.org', [`svc-verify=${expired.body.token}`]);
  h.clock.advance(25 * 3600 * 1000);
  t.equal(
    (await h.call('POST', '/v1/namespaces/org.late/verify', { body: { method: 'dns' } })).status,
    404,
    'challenges expire after 24 h',
  );

  const now = h.clock.now.getTime() / 1000;
  const idToken = h.idp.token({ iss: h.idp.issuer, aud: 'svc-registry', exp: now + 300, repository_owner: 'alice' });
  const gh = await h.call('POST', '/v1/namespaces/io.github.alice/verify', { body: { method: 'oidc', idToken } });
  t.equal(gh.status, 201);
  t.match(gh.body, { namespaces: ['io.github.alice'], method: 'github_oidc' });
  const steal = await h.call('POST', '/v1/namespaces/io.github.bob/verify', { body: { method: 'oidc', idToken } });
  t.equal(steal.status, 422);
  t.match(steal.body.detail, /speaks for io.github.alice, not io.github.bob/);
  t.equal((await h.call('POST', '/v1/namespaces/io.github.alice/challenge', { body: { method: 'dns' } })).status, 400);
  t.equal((await h.call('POST', '/v1/namespaces/Not_A_Namespace/challenge', { body: { method: 'dns' } })).status, 400);
  const ip = await h.call('POST', '/v1/namespaces/1.0.0.127/challenge', { body: { method: 'well-known' } });
  t.equal(ip.status, 400, 'a namespace that names an IP address is refused');
  t.equal((await h.call('POST', '/v1/namespaces/org.example/challenge', { body: { method: 'carrier-pigeon' } })).status, 400);

  const pub = await h.call('POST', '/v1/registry/publish', {
    body: entry('io.github.alice/recipes', '0.1.0'),
    token: gh.body.token,
    key: idemKey(),
  });
  t.equal(pub.status, 201);
  t.match(pub.body.verification, { method: 'github_oidc' });
  const outside = await h.call('POST', '/v1/registry/publish', {
    body: entry('org.example/x', '0.1.0'),
    token: gh.body.token,
    key: idemKey(),
  });
  t.match(outside.body.issues, [{ code: 'namespace_unproven' }]);
});

t.test('challenge and verify are rate limited per client address', async (t) => {
  const h = await startHarness({ proofsPerMinute: 2 });
  t.teardown(() => h.close());
  const ask = () => h.call('POST', '/v1/namespaces/org.example/challenge', { body: { method: 'dns' } });
  t.equal((await ask()).status, 201);
  t.equal((await h.call('POST', '/v1/namespaces/org.example/verify', { body: { method: 'dns' } })).status, 422);
  const limited = await ask();
  t.equal(limited.status, 429);
  t.match(limited.body, { type: /rate-limited$/ });
  t.equal(limited.headers.get('retry-after'), '30');
  t.equal((await h.call('GET', '/v1/namespaces/org.example')).status, 200, 'reads are not limited');
  h.clock.advance(30_000);
  t.equal((await ask()).status, 201, 'the bucket refills');
});
