import t from 'tap';
import { startTestDnsServer } from '../testing/dns-server.js';
import { startTestOidcIssuer } from '../testing/oidc-issuer.js';
import { startTestWebServer } from '../testing/web-server.js';
import { checkDnsTxt } from './dns.js';
import { verifyOidcToken } from './oidc.js';
import { checkWellKnown } from './well-known.js';

t.test('DNS TXT proof against a loopback DNS server', async (t) => {
  const dns = await startTestDnsServer();
  t.teardown(() => dns.close());
  dns.setTxt('example.org', ['v=spf1 -all', 'svc-verify=tok-123']);
  dns.setTxt('long.example', [`svc-verify=${'a'.repeat(300)}`]);
  t.same(await checkDnsTxt('example.org', 'tok-123', { servers: [dns.address] }), { ok: true });
  t.same(await checkDnsTxt('EXAMPLE.org', 'tok-123', { servers: [dns.address] }), { ok: true }, 'names are case-insensitive');
  t.same(
    await checkDnsTxt('long.example', 'a'.repeat(300), { servers: [dns.address] }),
    { ok: true },
    'a record split into 255-byte strings',
  );
  const wrong = await checkDnsTxt('example.org', 'tok-999', { servers: [dns.address] });
  t.equal(wrong.ok, false);
  t.match(wrong, { message: /no TXT record "svc-verify=tok-999" on example.org \(found 2/ });
  const missing = await checkDnsTxt('nowhere.example', 'tok-123', { servers: [dns.address] });
  t.match(missing, { ok: false, message: /ENOTFOUND|ENODATA/ });
});

t.test('well-known proof against a loopback web server', async (t) => {
  const web = await startTestWebServer();
  t.teardown(() => web.close());
  const template = `${web.base}/{domain}/.well-known/svc-verify`;
  web.set('/example.org/.well-known/svc-verify', 'tok-abc\n', 'text/plain');
  web.set('/prefixed.org/.well-known/svc-verify', 'svc-verify=tok-abc\n', 'text/plain');
  t.same(await checkWellKnown('example.org', 'tok-abc', template), { ok: true });
  t.same(await checkWellKnown('prefixed.org', 'tok-abc', template), { ok: true });
  t.match(await checkWellKnown('example.org', 'tok-abcd', template), { ok: false, message: /does not serve the challenge token/ });
  t.match(await checkWellKnown('other.org', 'tok-abc', template), { ok: false, message: /answered 404/ });
  web.set('/big.org/.well-known/svc-verify', 'x'.repeat(5000), 'text/plain');
  t.match(await checkWellKnown('big.org', 'tok-abc', template), { ok: false, message: /larger than 4096/ });
});

t.test('OIDC token proof against a loopback issuer', async (t) => {
  const idp = await startTestOidcIssuer();
  t.teardown(() => idp.close());
  const now = new Date('2026-11-20T12:00:00Z');
  const nowS = now.getTime() / 1000;
  const opts = { jwksUrl: idp.jwksUrl, issuer: idp.issuer, audience: 'svc-registry' };
  const claims = { iss: idp.issuer, aud: 'svc-registry', exp: nowS + 300, iat: nowS, repository_owner: 'Alice-Cooks' };
  t.match(await verifyOidcToken(idp.token(claims), opts, now), { ok: true, owner: 'alice-cooks' }, 'ES256');
  t.match(await verifyOidcToken(idp.token(claims, { alg: 'RS256' }), opts, now), { ok: true, owner: 'alice-cooks' }, 'RS256');
  t.match(await verifyOidcToken(idp.token({ ...claims, aud: ['x', 'svc-registry'] }), opts, now), { ok: true }, 'audience list');
  t.match(await verifyOidcToken(idp.token({ ...claims, iss: 'https://evil.example' }), opts, now), { ok: false, message: /issuer/ });
  t.match(await verifyOidcToken(idp.token({ ...claims, aud: 'other' }), opts, now), { ok: false, message: /audience/ });
  t.match(await verifyOidcToken(idp.token({ ...claims, exp: nowS - 60 }), opts, now), { ok: false, message: /expired/ });
  t.match(await verifyOidcToken(idp.token({ ...claims, nbf: nowS + 600 }), opts, now), { ok: false, message: /not valid yet/ });
  t.match(await verifyOidcToken(idp.token({ ...claims, repository_owner: undefined }), opts, now), {
    ok: false,
    message: /repository_owner/,
  });
  t.match(
    await verifyOidcToken(idp.token(claims, { key: idp.strangerKey }), opts, now),
    { ok: false, message: /does not verify/ },
    'forged',
  );
  t.match(await verifyOidcToken(idp.token(claims, { kid: 'nope' }), opts, now), { ok: false, message: /no key "nope"/ });
  const [h, p] = idp.token(claims).split('.');
  t.match(await verifyOidcToken(`${h}.${p}.`, opts, now), { ok: false }, 'empty signature');
  t.match(await verifyOidcToken('not-a-jwt', opts, now), { ok: false, message: /three dot-separated/ });
  const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
  t.match(await verifyOidcToken(none, opts, now), { ok: false, message: /only RS256 and ES256/ });
});
