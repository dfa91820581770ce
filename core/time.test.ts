import t from 'tap';
import { compareRfc3339, parseRfc3339, toRfc3339Seconds } from './time.js';

const micros = (s: string) => parseRfc3339(s)?.epochMicros;

t.test('reads strict RFC 3339 times as instants', async (t) => {
  t.equal(micros('1970-01-01T00:00:00Z'), 0n);
  t.equal(micros('1970-01-01T00:00:01.5Z'), 1_500_000n);
  t.equal(micros('1970-01-01t00:00:00.000001z'), 1n, 'lower-case t and z, microsecond');
  t.equal(micros('1970-01-01 00:00:00.0000019Z'), 1n, 'space separator; digits past the microsecond are cut');
  t.equal(micros('1970-01-01T01:00:00+01:00'), 0n, 'offset applied');
  t.equal(micros('1969-12-31T23:30:00-00:30'), 0n);
  t.equal(micros('2024-02-29T12:00:00Z'), BigInt(Date.UTC(2024, 1, 29, 12)) * 1000n, 'leap day');
  const yearOne = new Date(0);
  yearOne.setUTCFullYear(1, 0, 1);
  t.equal(micros('0001-01-01T00:00:00Z'), BigInt(yearOne.getTime()) * 1000n, 'year 1 is not read as 1901');
  t.equal(compareRfc3339('2026-01-01T10:00:00+02:00', '2026-01-01T08:00:00Z'), 0);
  t.equal(compareRfc3339('2026-01-01T08:00:00.000001Z', '2026-01-01T08:00:00Z'), 1);
  t.equal(compareRfc3339('nope', '2026-01-01T08:00:00Z'), null);
});

t.test('refuses what is not a real RFC 3339 time', async (t) => {
  for (const bad of [
    '2026-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2100-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T23:60:00Z',
    '2026-01-01T23:59:60Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+01:60',
    '2026-01-01T00:00:00',
    '2026-01-01',
    '2026-01-01T00:00Z',
    '2026-01-01T00:00:00.Z',
    '2026-01-01T00:00:00+0100',
    ' 2026-01-01T00:00:00Z',
    '0000-01-01T00:00:00Z',
    'next year',
    '',
  ]) {
    t.equal(parseRfc3339(bad), null, bad);
  }
  t.equal(parseRfc3339(1700000000), null);
  t.equal(parseRfc3339(null), null);
});

t.test('toRfc3339Seconds', async (t) => {
  t.equal(toRfc3339Seconds(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678))), '2026-01-02T03:04:05Z');
});
