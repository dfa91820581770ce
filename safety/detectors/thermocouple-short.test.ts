import t from 'tap';
import { type ShortState, stepShort } from './thermocouple-short.js';

const thermal = { heatCapacityJPerK: 6500, lossWPerK: 4, ambientC: 21 };

const run = (seconds: number, temp: number, coldJunctionC: number | undefined, power = 1) => {
  let state: ShortState = {};
  for (let ms = 0; ms <= seconds * 1000; ms += 250) {
    const r = stepShort(state, { heater: 'fryer', sensor: 'oil', tempC: temp, coldJunctionC, power, maxPowerW: 2000, thermal, now: ms });
    if (r.trip) return { trip: r.trip, at: ms };
    state = r.state;
  }
  return { trip: null, at: -1 };
};

t.test('reading the amplifier board while the pot is heated: a short, by plausibility', async (t) => {
  const r = run(60, 26, 26);
  t.equal(r.trip?.reason, 'sensor_fault');
  t.equal(r.trip?.subject, 'oil');
  t.equal(r.at, 8_000);
  t.match(r.trip?.message, /thermocouple short suspected — it reads 26 °C, the amplifier's own temperature \(26 °C\)/);
  t.match(r.trip?.hint, /no short-circuit bit/);
});

t.test('no verdict without heat, away from the cold junction, or without a cold-junction reading', async (t) => {
  t.equal(run(120, 26, 26, 0).trip, null, 'a cold pot at room temperature reads the board temperature too');
  t.equal(run(120, 150, 26).trip, null);
  t.equal(run(120, 26, undefined).trip, null, 'an MCP9601 flags a short itself');
});
