import t from 'tap';
import { checkImplausiblePair } from './implausible-pair.js';

t.test('readings within accuracyA + accuracyB + 1 °C agree', async (t) => {
  const a = { sensor: 'oil', tempC: 180, accuracyC: 2 };
  t.equal(checkImplausiblePair(a, { sensor: 'oil2', tempC: 185, accuracyC: 2 }), null, 'exactly 5 °C apart is plausible');
  t.equal(checkImplausiblePair(a, { sensor: 'oil2', tempC: 175.5, accuracyC: 2 }), null);
});

t.test('further apart trips, naming both sensors and the allowance', async (t) => {
  const trip = checkImplausiblePair({ sensor: 'oil', tempC: 180, accuracyC: 2 }, { sensor: 'oil2', tempC: 185.1, accuracyC: 2 });
  t.equal(trip?.reason, 'implausible_pair');
  t.equal(trip?.subject, 'oil+oil2');
  t.equal(trip?.limit, 5);
  t.match(trip?.message, /disagree by 5\.1 °C, more than 5 °C/);
  const tight = checkImplausiblePair({ sensor: 'a', tempC: 50, accuracyC: 0.5 }, { sensor: 'b', tempC: 52.5, accuracyC: 0.5 });
  t.equal(tight?.limit, 2, 'accuracies are per sensor');
});
