import t from 'tap';
import { checkOverLimit } from './over-limit.js';

const base = { heater: 'fryer', sensor: 'oil', maxC: 200, limitId: 'oil.max_temp' };

t.test('at or below the max is fine, above trips with the limit and a hint', async (t) => {
  t.equal(checkOverLimit({ ...base, tempC: 199.9 }), null);
  t.equal(checkOverLimit({ ...base, tempC: 200 }), null, 'equal to the max is allowed');
  const trip = checkOverLimit({ ...base, tempC: 200.0625 });
  t.equal(trip?.reason, 'over_limit');
  t.equal(trip?.subject, 'oil.max_temp');
  t.equal(trip?.limit, 200);
  t.equal(trip?.reading, 200.0625);
  t.match(trip?.message, /oil reads 200\.1 °C, above the limit oil\.max_temp \(200 °C\)/);
  t.match(trip?.hint, /cool below 200 °C/);
});

t.test('a NaN reading never passes as "not over"', async (t) => {
  // NaN compares false with everything: the reading-fault detector handles it; over-limit must not crash.
  t.equal(checkOverLimit({ ...base, tempC: Number.NaN }), null);
  t.equal(checkOverLimit({ ...base, tempC: Number.POSITIVE_INFINITY })?.reason, 'over_limit');
});
