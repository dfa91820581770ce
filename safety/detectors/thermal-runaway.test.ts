import t from 'tap';
import { RUNAWAY_DEFAULTS, type RunawayState, stepRunaway } from './thermal-runaway.js';

// The simulated oil pot: 6500 J/K, 4 W/K to 21 °C, a 2 kW element.
const thermal = { heatCapacityJPerK: 6500, lossWPerK: 4, ambientC: 21 };

/** Feed one reading every 250 ms; `temp(s)` gives the reading at second s. */
const run = (seconds: number, temp: (s: number) => number, o: { power?: number; plateauC?: number } = {}) => {
  let state: RunawayState = {};
  for (let ms = 0; ms <= seconds * 1000; ms += 250) {
    const r = stepRunaway(state, {
      heater: 'fryer',
      sensor: 'oil',
      tempC: temp(ms / 1000),
      power: o.power ?? 1,
      maxPowerW: 2000,
      thermal,
      plateauC: o.plateauC,
      now: ms,
    });
    if (r.trip) return { trip: r.trip, at: ms };
    state = r.state;
  }
  return { trip: null, at: -1 };
};

t.test('oil that rises as the delivered energy says never trips, at any power', async (t) => {
  t.equal(run(300, (s) => 20 + 0.3 * s).trip, null, 'full power from cold');
  t.equal(run(300, (s) => 170 + 0.2 * s).trip, null, 'full power near a 175 °C target');
  t.equal(run(600, (s) => 100 + 0.02 * s, { power: 0.3 }).trip, null, 'low power, slow rise');
});

t.test('no rise while heating trips within the 30 s window, far from or near the target', async (t) => {
  const cold = run(120, () => 21);
  t.equal(cold.trip?.reason, 'thermal_runaway');
  t.equal(cold.at, 30_000, 'one window');
  t.match(cold.trip?.message, /delivered 60 kJ in 30 s \(average 100%\): oil should have risen about 9\.2 °C but rose 0 °C/);
  t.match(cold.trip?.hint, /sensor is in the contents/);
  const hot = run(120, (s) => 172 + 0.01 * s);
  t.equal(hot.trip?.reason, 'thermal_runaway', 'a reading stuck just below a 175 °C target');
});

t.test('a low power level trips too, once enough energy went in', async (t) => {
  const r = run(400, () => 60, { power: 0.2 });
  t.equal(r.trip?.reason, 'thermal_runaway');
  t.ok(r.at > 30_000 && r.at <= RUNAWAY_DEFAULTS.maxWindowMs, `at ${r.at} ms`);
});

t.test('holding at a steady state (heat balances the losses) is not a fault', async (t) => {
  // 4 W/K × (175 − 21) °C = 616 W, about 31 % of the element.
  t.equal(run(600, () => 175, { power: 0.308 }).trip, null);
});

t.test('the check rests at a plateau (water boiling)', async (t) => {
  t.equal(run(300, () => 99.5, { plateauC: 90 }).trip, null);
});
