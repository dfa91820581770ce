import t from 'tap';
import { isLocalAddress } from './local.js';

t.test('loopback and private LAN ranges are local', async (t) => {
  for (const ip of [
    '127.0.0.1',
    '127.8.9.1',
    '10.0.0.7',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.20',
    '169.254.3.4',
    '::1',
    '::ffff:192.168.0.9',
    'fd12:3456::1',
    'fe80::1',
  ])
    t.ok(isLocalAddress(ip), ip);
});

t.test('public, malformed and missing addresses are not', async (t) => {
  for (const ip of [
    '8.8.8.8',
    '172.15.0.1',
    '172.32.0.1',
    '192.169.0.1',
    '203.0.113.5',
    '::ffff:8.8.8.8',
    '2001:db8::1',
    'localhost',
    '',
    '10.0.0',
    undefined,
  ])
    t.notOk(isLocalAddress(ip), String(ip));
});
