import t from 'tap';
import { type FullPowerState, stepFullPower } from './full-power-cap.js';

const run = (seconds: number, temp: (s: number) => number, o: { power?: number; targetC?: number; plateauC?: number } = {}) => {
  let state: FullPowerState = {};
  for (let ms = 0; ms <= seconds * 1000; ms += 250) {
    const r = stepFullPower(state, {
      heater: 'fryer',
      sensor: 'oil',
      tempC: temp(ms / 1000),
      power: o.power ?? 1,
      targetC: 'targetC' in o ? o.targetC : 175,
      plateauC: o.plateauC,
      now: ms,
    });
    if (r.trip) return { trip: r.trip, at: ms };
    state = r.state;
  }
  return { trip: null, at: -1 };
};

t.test('full power for more than 45 s within 5 °C of the target, or above it, trips', async (t) => {
  const r = run(120, () => 172);
  t.equal(r.trip?.reason, 'full_power_near_target');
  t.equal(r.trip?.limit, 175);
  t.equal(r.at, 45_250);
  t.match(r.trip?.message, /fryer stayed at 100% for 45 s with oil at 172 °C, within 5 °C of its target 175 °C or above it/);
  t.equal(run(120, (s) => 176 + s * 0.2).trip?.reason, 'full_power_near_target', 'overshooting');
});

t.test('a controller that crosses the band, backs off, heats from far below or has no target is fine', async (t) => {
  t.equal(run(120, (s) => 150 + s * 0.2).trip, null, 'crosses 170..175 in 25 s');
  t.equal(run(120, () => 172, { power: 0.8 }).trip, null, 'not full power');
  t.equal(run(300, () => 100).trip, null, 'far below');
  t.equal(run(300, () => 172, { targetC: undefined }).trip, null, 'no target');
  t.equal(run(300, () => 99.6, { targetC: 100, plateauC: 90 }).trip, null, 'water boiling');
});
