import t from 'tap';
import { RUNAWAY_DEFAULTS, type RunawayState, stepRunaway } from './thermal-runaway.js';

const run = (temps: number[], o: { power?: number; targetC?: number; plateauC?: number; everyMs?: number } = {}) => {
  let state: RunawayState = {};
  for (let i = 0; i < temps.length; i++) {
    const r = stepRunaway(state, {
      heater: 'fryer',
      sensor: 'oil',
      tempC: temps[i] as number,
      power: o.power ?? 1,
      targetC: o.targetC,
      plateauC: o.plateauC,
      now: i * (o.everyMs ?? 10_000),
    });
    if (r.trip) return { trip: r.trip, at: i };
    state = r.state;
  }
  return { trip: null, at: -1 };
};

t.test('a heater that keeps raising the temperature never trips', async (t) => {
  t.equal(run([20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]).trip, null);
});

t.test('no rise of gainC within the window while heating trips, with a hint', async (t) => {
  const r = run([20, 20.5, 21, 21, 21, 21, 21, 21.5, 21.5]);
  t.equal(r.trip?.reason, 'thermal_runaway');
  t.equal(r.at, 7, 'after the 60 s window from the last goal');
  t.match(r.trip?.message, /did not reach 22 °C within 60 s/);
  t.match(r.trip?.hint, /sensor is in the contents/);
});

t.test('the check rests at low power, near the target and at a plateau', async (t) => {
  const flat = [90, 90, 90, 90, 90, 90, 90, 90, 90, 90];
  t.equal(run(flat, { power: 0.3 }).trip, null, 'low power');
  t.equal(run(flat, { targetC: 92 }).trip, null, 'within hysteresis of the target');
  t.equal(run(flat, { targetC: 180 }).trip?.reason, 'thermal_runaway', 'far below the target');
  t.equal(run(flat, { plateauC: 90 }).trip, null, 'boiling water');
  t.equal(RUNAWAY_DEFAULTS.windowMs, 60_000);
});
