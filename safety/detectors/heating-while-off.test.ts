import t from 'tap';
import { stepHeatingWhileOff, type WhileOffState } from './heating-while-off.js';

const run = (samples: Array<[number, number]>, power = 0) => {
  let state: WhileOffState = {};
  for (const [now, tempC] of samples) {
    const r = stepHeatingWhileOff(state, { heater: 'fryer', sensor: 'oil', tempC, power, now });
    if (r.trip) return r.trip;
    state = r.state;
  }
  return null;
};

t.test('residual heat right after switching off is not a fault', async (t) => {
  t.equal(
    run([
      [0, 150],
      [10_000, 160],
      [20_000, 165],
      [29_000, 166],
    ]),
    null,
  );
});

t.test('a rise of more than 5 °C after settling trips as a welded relay', async (t) => {
  const trip = run([
    [0, 150],
    [30_000, 148],
    [40_000, 150],
    [50_000, 153.5],
  ]);
  t.equal(trip?.reason, 'heating_while_off');
  t.equal(trip?.subject, 'fryer');
  t.match(trip?.message, /rose from 148 °C to 153\.5 °C/);
  t.match(trip?.hint, /welded/);
});

t.test('cooling, small wobbles and food warming to room temperature do not trip', async (t) => {
  t.equal(
    run([
      [0, 150],
      [30_000, 140],
      [60_000, 130],
      [90_000, 134],
    ]),
    null,
    'wobble under 5 °C',
  );
  t.equal(
    run([
      [0, 4],
      [30_000, 4],
      [600_000, 20],
    ]),
    null,
    'chilled food warming up',
  );
});

t.test('while heat is commanded the detector is idle', async (t) => {
  t.equal(
    run(
      [
        [0, 20],
        [60_000, 80],
        [120_000, 140],
      ],
      1,
    ),
    null,
  );
});
