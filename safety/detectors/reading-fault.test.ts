import t from 'tap';
import { checkReadingFault } from './reading-fault.js';

const rangeC = { min: -20, max: 300 };

t.test('a good reading passes', async (t) => {
  t.equal(checkReadingFault({ sensor: 'oil', tempC: 180, rangeC }), null);
  t.equal(checkReadingFault({ sensor: 'oil', tempC: -20, rangeC }), null);
});

t.test('open and short thermocouples trip as sensor faults with a wiring hint', async (t) => {
  const open = checkReadingFault({ sensor: 'oil', tempC: null, fault: 'open_circuit', detail: 'status 0x50', rangeC });
  t.equal(open?.reason, 'sensor_fault');
  t.match(open?.message, /open circuit \(status 0x50\)/);
  t.match(open?.hint, /plugged/);
  const short = checkReadingFault({ sensor: 'oil', tempC: null, fault: 'short', rangeC });
  t.match(short?.message, /short circuit/);
  t.match(short?.hint, /insulation/);
});

t.test('out of range, non-numeric and missing values trip as out-of-range readings', async (t) => {
  t.equal(checkReadingFault({ sensor: 'oil', tempC: 300.5, rangeC })?.reason, 'out_of_range_reading');
  t.equal(checkReadingFault({ sensor: 'oil', tempC: -40, rangeC })?.reason, 'out_of_range_reading');
  t.equal(checkReadingFault({ sensor: 'oil', tempC: null, fault: 'out_of_range', rangeC })?.reason, 'out_of_range_reading');
  t.match(checkReadingFault({ sensor: 'oil', tempC: null, fault: 'non_numeric', rangeC })?.message, /non numeric/);
  t.equal(checkReadingFault({ sensor: 'oil', tempC: Number.NaN, rangeC })?.reason, 'out_of_range_reading');
  t.equal(checkReadingFault({ sensor: 'oil', tempC: null, rangeC })?.reason, 'out_of_range_reading');
});

t.test('a bus error alone is left to the stale-reading detector', async (t) => {
  t.equal(checkReadingFault({ sensor: 'oil', tempC: null, fault: 'bus_error', rangeC }), null);
});
