import t from 'tap';
import { HostAllowList, hostOfHeader, normalizeHostName, PARSED_HOSTS_SIZE, parsedHostsKept } from './host-guard.js';
import type { ProblemError } from './problems.js';

t.test('Host header grammar', (t) => {
  t.equal(hostOfHeader('localhost:8080'), 'localhost');
  t.equal(hostOfHeader('LOCALHOST'), 'localhost');
  t.equal(hostOfHeader('[::1]:80'), '[::1]');
  t.equal(hostOfHeader('kitchen.local.'), 'kitchen.local', 'a trailing dot is the same name');
  t.equal(hostOfHeader('0x7f.1'), '127.0.0.1', 'IPv4 forms as the URL parser (and a browser) reads them');
  for (const bad of [undefined, '', 'a b', 'a:99999', 'a:-1', '[zz]', 'a/b', 'a@b', 'x'.repeat(301)])
    t.equal(hostOfHeader(bad), undefined, String(bad));
  t.equal(normalizeHostName('FE80::1'), '[fe80::1]');
  t.end();
});

t.test('the same answers for a value asked again, and after many other values', (t) => {
  const values = ['localhost:8080', 'LOCALHOST', '[::1]:80', '0x7f.1', 'a b', 'a:99999', '[zz]', 'a@b'];
  const first = values.map((v) => hostOfHeader(v));
  t.same(
    values.map((v) => hostOfHeader(v)),
    first,
  );
  for (let i = 0; i < 200; i++) t.equal(hostOfHeader(`h${i}.example:${i}`), `h${i}.example`);
  t.ok(parsedHostsKept() <= PARSED_HOSTS_SIZE, `a flood of Host values keeps at most ${PARSED_HOSTS_SIZE} (${parsedHostsKept()})`);
  t.same(
    values.map((v) => hostOfHeader(v)),
    first,
  );
  t.same(first, ['localhost', 'localhost', '[::1]', '127.0.0.1', undefined, undefined, undefined, undefined]);
  t.end();
});

t.test('the allow-list: localhost, the machine, configured names, *', (t) => {
  const list = new HostAllowList({ allowedHosts: ['Kitchen.example'], machine: () => ['pi', '192.168.1.20', 'fe80::2'] });
  for (const ok of ['localhost', '127.0.0.1', '[::1]', 'kitchen.example', 'pi', '192.168.1.20', '[fe80::2]']) t.ok(list.allows(ok), ok);
  t.notOk(list.allows('evil.example.com'));
  t.notOk(list.allows('192.168.1.21'));
  const only = new HostAllowList({ machineNames: false, allowedHosts: ['a.example'] });
  t.notOk(only.allows('localhost'));
  t.ok(only.allows('a.example'));
  t.ok(new HostAllowList({ allowedHosts: ['*'] }).allows('anything.example'));
  const refusal = (headers: Record<string, string>) => {
    try {
      list.check(headers);
      return 'allowed';
    } catch (err) {
      return (err as ProblemError).slug;
    }
  };
  t.equal(refusal({ host: 'localhost:1' }), 'allowed');
  t.equal(refusal({}), 'bad-request');
  t.equal(refusal({ host: 'evil.example.com' }), 'host-not-allowed');
  t.equal(refusal({ host: 'localhost', origin: 'http://evil.example.com' }), 'origin-not-allowed');
  t.equal(refusal({ host: 'localhost', origin: 'null' }), 'origin-not-allowed');
  t.equal(refusal({ host: 'localhost', origin: 'file:///x' }), 'origin-not-allowed');
  t.equal(refusal({ host: 'localhost', origin: 'http://pi:8080' }), 'allowed');
  t.end();
});
