import t from 'tap';
import { evaluate, mismatches } from './expect.js';
import type { Observations } from './observe.js';
import { ms, parseScenario } from './scenario.js';

function obs(extra: Partial<Observations> = {}): Observations {
  return {
    startedAt: 0,
    bus: [],
    maxTempC: {},
    readings: [],
    labels: new Map([['fault', 1000]]),
    powers: [],
    grants: [],
    http: [],
    unfired: [],
    trueMaxC: {},
    stalls: [],
    trace: [],
    media: {},
    ...extra,
  };
}

t.test('subset matching: objects, arrays (some element), /regex/, empty array means none', async (t) => {
  t.same(mismatches({ a: 1, b: 'open circuit' }, { b: '/open/' }), []);
  t.equal(mismatches({ a: 1 }, { a: 2 }).length, 1);
  t.same(mismatches([{ k: 1 }, { k: 2 }], [{ k: 2 }]), []);
  t.equal(mismatches([{ k: 1 }], [{ k: 2 }]).length, 1);
  t.equal(mismatches([{ k: 1 }], []).length, 1, 'an empty expected array needs an empty actual one');
  t.same(mismatches(undefined, null), []);
  t.equal(mismatches({ x: 1 }, null).length, 1);
  t.equal(mismatches(undefined, '/x/').length, 1);
});

t.test('heat off: late, never, or back on are failures; on time is not', async (t) => {
  const on = { fryer: 1, pot: 0 };
  const off = { fryer: 0, pot: 0 };
  const run = (powers: Observations['powers'], withinMs = 250) => evaluate({ heatOff: { withinMs } }, obs({ powers }));
  const ok = run([
    { t: 900, heaters: on },
    { t: 1250, heaters: off },
  ]);
  t.same(ok.failures, []);
  t.equal(ok.figures.heatOffMs, 250);
  t.match(run([{ t: 1500, heaters: off }]).failures, [/heat went off 500 ms after/]);
  t.match(run([{ t: 1100, heaters: on }]).failures, [/never all off/]);
  t.match(
    run([
      { t: 1100, heaters: off },
      { t: 2000, heaters: on },
    ]).failures,
    [/on again at \+1000 ms/],
  );
});

t.test('timing bounds and outputs fail when not met', async (t) => {
  const o = obs({
    finalAt: 5000,
    bus: [{ name: 'safety', t: 3000, payload: { kind: 'trip', trip: { reason: 'over_limit' } } }],
    readings: [{ t: 2000, sensor: 'oil', tempC: 191 }],
    powers: [{ t: 2250, heaters: { fryer: 0 } }],
    maxTempC: { oil: 193 },
    status: { state: 'stopped' },
  });
  const r = evaluate(
    {
      state: 'completed',
      stopWithin: { within: '1s' },
      tripWithin: { within: '1s' },
      trip: { reason: 'sensor_fault' },
      crossing: { sensor: 'oil', aboveC: 190, heatOffWithinMs: 0 },
      maxTempC: { oil: 191 },
      noHeatBetween: [{ from: 'nowhere' }],
    },
    o,
  );
  t.match(r.failures.join('\n'), /state: expected "completed"/);
  t.match(r.failures.join('\n'), /stopWithin: final 4000 ms/);
  t.match(r.failures.join('\n'), /tripWithin: tripped 2000 ms/);
  t.match(r.failures.join('\n'), /trip\/reason/);
  t.match(r.failures.join('\n'), /crossing: heat off 250 ms/);
  t.match(r.failures.join('\n'), /oil: read 193/);
  t.match(r.failures.join('\n'), /"nowhere" never happened/);
  t.match(evaluate({ watchdog: { offWithinMs: 300 } }, obs({ stalls: [{ onAtStart: { fryer: 1 }, offAfterMs: 450 }] })).failures, [
    /watchdog: outputs physically off 450 ms/,
  ]);
  t.match(evaluate({}, obs({ unfired: ['{"presence":true}'] })).failures, [/never reached/]);
});

t.test('scenario files: validated, one action per timeline entry, durations', async (t) => {
  const base = { name: 'x', description: 'd', hardware: 'safe', expect: {} };
  t.equal(parseScenario(base, 'f.yaml').name, 'x');
  t.throws(() => parseScenario({ ...base, colour: 'red' }, 'f.yaml'), /additional properties \(colour\)/);
  t.throws(() => parseScenario({ ...base, hardware: 'maybe' }, 'f.yaml'), /hardware/);
  t.throws(() => parseScenario({ ...base, timeline: [{ at: '1s', presence: true, resume: true }] }, 'f.yaml'), /exactly one thing/);
  t.throws(() => parseScenario({ ...base, timeline: [{ at: 'soon', presence: true }] }, 'f.yaml'), /timeline\/0\/at/);
  t.equal(ms('250ms'), 250);
  t.equal(ms('1.5s'), 1500);
  t.equal(ms('2m'), 120_000);
  t.throws(() => ms('2 weeks'), /not a duration/);
});

t.test('the watchdog expectation reads the outputs as they physically were during the stall', async (t) => {
  const e = { watchdog: { offWithinMs: 1000 } };
  t.same(evaluate(e, obs({ stalls: [{ onAtStart: { fryer: 1 }, offAfterMs: 240 }] })).failures, []);
  t.match(evaluate(e, obs({ stalls: [{ onAtStart: { fryer: 1 } }] })).failures, [
    /still physically on when the stall ended \(\{"fryer":1\} at its start\)/,
  ]);
  t.match(evaluate(e, obs({ stalls: [{ onAtStart: {}, offAfterMs: 0 }] })).failures, [/no output was on when the stall began/]);
  t.match(evaluate(e, obs()).failures, [/no stall happened/]);
});

t.test('true temperatures: the contents as the simulated physics has them, not the (perhaps frozen) reading', async (t) => {
  t.same(evaluate({ trueMaxTempC: { oil: 185 } }, obs({ trueMaxC: { oil: 184.9 } })).failures, []);
  t.match(evaluate({ trueMaxTempC: { oil: 185 } }, obs({ trueMaxC: { oil: 402 } })).failures, [
    /the contents reached 402 °C, above 185 °C/,
  ]);
  t.match(evaluate({ trueMaxTempC: { oil: 185 } }, obs()).failures, [/no true temperature/]);
});
