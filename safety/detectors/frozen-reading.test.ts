import t from 'tap';
import { type FrozenState, stepFrozen } from './frozen-reading.js';

const thermal = { heatCapacityJPerK: 6500, lossWPerK: 4, ambientC: 21 };

const run = (seconds: number, temp: (s: number) => number, power: (s: number) => number = () => 1) => {
  let state: FrozenState = {};
  for (let ms = 0; ms <= seconds * 1000; ms += 250) {
    const s = ms / 1000;
    const r = stepFrozen(state, {
      heater: 'fryer',
      sensor: 'oil',
      tempC: temp(s),
      power: power(s),
      maxPowerW: 2000,
      thermal,
      noiseFloorC: 0.0625,
      now: ms,
    });
    if (r.trip) return { trip: r.trip, at: ms };
    state = r.state;
  }
  return { trip: null, at: -1 };
};

const noise = (s: number) => (Math.round(s * 4) % 2 === 0 ? 0 : 0.0625);

t.test('a reading frozen just below the target while at full power trips after one window', async (t) => {
  const r = run(60, () => 172);
  t.equal(r.trip?.reason, 'frozen_reading');
  t.equal(r.trip?.subject, 'oil');
  t.equal(r.at, 10_000);
  t.match(
    r.trip?.message,
    /oil stayed at 172 °C \(moved 0 °C\) for 10 s while heater fryer \(now at 100%\) should have made it rise by about 2\.\d °C/,
  );
  t.match(r.trip?.hint, /frozen/);
});

t.test('frozen above the target with heat off trips too: the oil must cool', async (t) => {
  const r = run(
    60,
    () => 180,
    () => 0,
  );
  t.equal(r.trip?.reason, 'frozen_reading');
  t.ok(r.at > 20_000 && r.at < 22_000, `trips once 2 °C of cooling is expected (${r.at} ms)`);
  t.match(r.trip?.message, /\(now at 0%\) should have made it fall by about 2 °C/);
});

t.test('a living sensor is never frozen, even when its pot holds steady', async (t) => {
  t.equal(run(120, (s) => 172 + noise(s)).trip, null, 'one LSB of noise is life');
  t.equal(run(120, (s) => 20 + 0.3 * s).trip, null, 'rising');
  t.equal(
    run(
      300,
      () => 175,
      () => 0.308,
    ).trip,
    null,
    'steady state: the model expects no change',
  );
  t.equal(
    run(
      300,
      () => 21,
      () => 0,
    ).trip,
    null,
    'cold and off: nothing expected',
  );
});
