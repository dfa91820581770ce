/**
 * The outbound guard (outbound.ts) and the guarded client (outbound-fetch.ts): address classes as the WHATWG URL
 * parser and the resolver give them, the allow-list, and over real sockets on 127.0.0.1: a name resolving to
 * loopback is refused at connect time, a name the guard resolved is connected to at the checked address, a
 * redirect is never followed.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { AllowList, classify, embeddedV4, OutboundGuard, OutboundRefused, type Resolver } from './outbound.js';
import { guardedFetch } from './outbound-fetch.js';

const hostOf = (url: string) => new URL(url).hostname;

t.test('address classes, from URLs as fetch parses them', async (t) => {
  const cases: [string, string | null][] = [
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.9.9.9/', 'loopback'],
    ['http://2130706433/', 'loopback'], // decimal
    ['http://0177.0.0.1/', 'loopback'], // octal
    ['http://0x7f.1/', 'loopback'], // hexadecimal, short form
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'], // IPv4-mapped, normalized to [::ffff:7f00:1]
    ['http://[::127.0.0.1]/', 'loopback'], // IPv4-compatible
    ['http://[64:ff9b::127.0.0.1]/', 'loopback'], // NAT64
    ['http://[2002:7f00:1::]/', 'loopback'], // 6to4
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://[::ffff:169.254.169.254]/', 'link-local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://224.0.0.251/', 'multicast'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://240.1.2.3/', 'reserved'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://10.1.2.3/', 'private'],
    ['http://172.31.0.1/', 'private'],
    ['http://192.168.1.20/', 'private'],
    ['http://100.64.0.1/', 'private'],
    ['http://[fd00::1]/', 'private'],
    ['http://93.184.216.34/', null],
    ['http://[2606:4700::1111]/', null],
    ['http://172.32.0.1/', null],
  ];
  for (const [url, want] of cases) t.equal(classify(hostOf(url)), want, `${url} → ${want ?? 'public'}`);
  t.equal(embeddedV4('::ffff:7f00:1'), '127.0.0.1');
  t.equal(embeddedV4('2606:4700::1111'), null);
});

t.test('the allow-list: addresses, networks and names open what they name, nothing else', async (t) => {
  const allow = new AllowList(['192.168.1.20', 'nodered.local', '10.0.0.0/24', '::1', '[fd00::]/8']);
  t.ok(allow.hasAddress('192.168.1.20'));
  t.ok(allow.hasAddress('::ffff:192.168.1.20'), 'the same address, IPv4-mapped');
  t.notOk(allow.hasAddress('192.168.1.21'));
  t.ok(allow.hasAddress('10.0.0.200'));
  t.notOk(allow.hasAddress('10.0.1.1'));
  t.ok(allow.hasAddress('::1'));
  t.ok(allow.hasAddress('fd12::5'));
  t.ok(allow.hasName('NodeRED.local.'));
  t.notOk(allow.hasName('evil.local'));
  for (const bad of ['10.0.0.0/33', 'not a host', 'a/b', '::1/129', ''])
    t.throws(() => new AllowList([bad]), { name: 'AllowListError' }, `${JSON.stringify(bad)} is refused`);
});

t.test('a guard: every resolved address checked, the hub’s own addresses refused, the allow-list wins', async (t) => {
  const dns: Record<string, string[]> = { 'mixed.test': ['93.184.216.34', '127.0.0.1'], 'public.test': ['93.184.216.34'] };
  const resolver: Resolver = async (h) => (dns[h] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const guard = new OutboundGuard({ resolver, ownAddresses: () => ['93.184.216.40'] });
  await t.rejects(
    guard.addresses('mixed.test'),
    { name: 'OutboundRefused', addressClass: 'loopback', address: '127.0.0.1', host: 'mixed.test' },
    'one bad address is enough',
  );
  t.same(await guard.addresses('public.test'), [{ address: '93.184.216.34', family: 4 }]);
  await t.rejects(guard.addresses('93.184.216.40'), { name: 'OutboundRefused', addressClass: 'this-hub' }, 'an address the hub listens on');
  await t.rejects(guard.checkUrl('http://[::ffff:93.184.216.40]/'), { name: 'OutboundRefused', addressClass: 'this-hub' });
  await t.resolves(guard.checkUrl('http://nowhere.test/'), 'a name that does not resolve yet is left for delivery');
  const open = new OutboundGuard({ resolver, allow: ['127.0.0.1', '93.184.216.40'] });
  t.equal((await open.addresses('mixed.test')).length, 2, 'allow-listed loopback passes');
  await t.resolves(open.checkUrl('http://93.184.216.40/'));
  t.match(new OutboundRefused('x.test', '127.0.0.1', 'loopback').message, /^x\.test \(127\.0\.0\.1\) is a loopback address: refused/);
});

async function receiver(answer: (path: string) => { status: number; location?: string } = () => ({ status: 204 })) {
  const got: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', headers: req.headers, body });
      const a = answer(req.url ?? '');
      res.writeHead(a.status, a.location ? { location: a.location } : {}).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { port, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const POST = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' };

t.test('over real sockets: refused before connecting, connected to the checked address, no redirect followed', async (t) => {
  const rx = await receiver((path) =>
    path === '/meta'
      ? { status: 307, location: 'http://169.254.169.254/latest/meta-data/' }
      : path === '/hop'
        ? { status: 302, location: '/landed' }
        : { status: 204 },
  );
  t.teardown(rx.close);
  let answer = '93.184.216.34';
  const resolver: Resolver = async () => [{ address: answer, family: 4 }];
  const strict = guardedFetch(new OutboundGuard({ resolver }));
  for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '2130706433', '0177.0.0.1', 'localhost']) {
    const local = guardedFetch(new OutboundGuard());
    await t.rejects(local(`http://${host}:${rx.port}/x`, POST), { name: 'OutboundRefused', addressClass: 'loopback' }, `${host}: refused`);
  }
  await t.rejects(strict(`http://[::1]:${rx.port}/x`, POST), { name: 'OutboundRefused', addressClass: 'loopback' });
  // DNS rebinding: a name that was public when registered resolves to loopback at delivery.
  answer = '127.0.0.1';
  await t.rejects(strict(`http://rebind.test:${rx.port}/x`, POST), {
    name: 'OutboundRefused',
    addressClass: 'loopback',
    host: 'rebind.test',
  });
  t.same(rx.got, [], 'nothing reached the receiver on 127.0.0.1');

  // Allowed: the guard's lookup is the only way to reach receiver.test (no DNS has it), at the checked address.
  const open = guardedFetch(new OutboundGuard({ resolver, allow: ['127.0.0.1'] }));
  const ok = await open(`http://receiver.test:${rx.port}/x`, POST);
  t.equal(ok.status, 204);
  t.equal(rx.got[0]?.headers.host, `receiver.test:${rx.port}`, 'the Host header names the URL’s host');
  t.equal(rx.got[0]?.body, '{"x":1}');
  const meta = await open(`http://receiver.test:${rx.port}/meta`, POST);
  t.equal(meta.status, 307, 'a redirect to the metadata address is an answer, not followed');
  const hop = await open(`http://receiver.test:${rx.port}/hop`, POST);
  t.equal(hop.status, 302, 'a redirect to an allowed address is not followed either');
  t.same(
    rx.got.map((g) => g.path),
    ['/x', '/meta', '/hop'],
    'no request went to /landed',
  );
});
