import t from 'tap';
import { checkStale } from './stale-reading.js';

t.test('fresh enough passes, older trips with the last error', async (t) => {
  t.equal(checkStale({ sensor: 'oil', lastGoodAt: 1000, since: 0, now: 2500, maxAgeMs: 1500 }), null);
  const trip = checkStale({ sensor: 'oil', lastGoodAt: 1000, since: 0, now: 2501, maxAgeMs: 1500, lastProblem: 'no ACK from 0x60' });
  t.equal(trip?.reason, 'stale_reading');
  t.equal(trip?.subject, 'oil');
  t.match(trip?.message, /no good reading for 1501 ms \(allowed 1500 ms\) \(last error: no ACK from 0x60\)/);
  t.match(trip?.hint, /cable/);
});

t.test('a sensor that never answered is stale once the grace period from the start is over', async (t) => {
  t.equal(checkStale({ sensor: 'pan', lastGoodAt: undefined, since: 10_000, now: 11_000, maxAgeMs: 1500 }), null);
  t.equal(checkStale({ sensor: 'pan', lastGoodAt: undefined, since: 10_000, now: 12_000, maxAgeMs: 1500 })?.reason, 'stale_reading');
});
