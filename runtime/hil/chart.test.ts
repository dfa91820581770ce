/** The scenario chart from recorded observations: what is drawn on the simulated rig, and on a hardware rig. */
import t from 'tap';
import { marks, scenarioSvg } from './chart.js';
import type { Observations } from './observe.js';
import type { ScenarioResult } from './runner.js';
import { parseScenario } from './scenario.js';

const scenario = parseScenario(
  { name: 'oil-trip', description: 'x', hardware: 'estop', expect: { trueMaxTempC: { oil: 185 } } },
  'oil-trip.yaml',
);

function obs(simulated: boolean): Observations {
  const ts = [0, 1000, 2000, 3000, 4000];
  return {
    startedAt: 0,
    bus: [
      { name: 'heater', t: 0, payload: { heater: 'fryer', power: 1 } },
      { name: 'safety', t: 3000, payload: { kind: 'trip', trip: { reason: 'frozen_reading' } } },
      { name: 'heater', t: 3000, payload: { heater: 'fryer', power: 0 } },
    ],
    maxTempC: { oil: 172 },
    readings: ts.map((t) => ({ t, sensor: 'oil', tempC: Math.min(170 + t / 1000, 172) })),
    labels: new Map([
      ['start', 0],
      ['fault', 2000],
    ]),
    powers: ts.map((t) => ({ t, heaters: { fryer: t < 3000 ? 1 : 0 } })),
    grants: [],
    http: [],
    trueMaxC: simulated ? { oil: 178 } : {},
    trace: simulated ? ts.map((t) => ({ t, trueC: { oil: 170 + (2 * t) / 1000 }, wire: { fryer: t < 3000 ? 1 : 0 } })) : [],
    media: { oil: 'oil' },
    limits: { limits: [{ id: 'oil.device_max', kind: 'max_temp', appliesTo: { medium: 'oil' }, max: 190 }] },
    stalls: [],
    unfired: [],
  };
}

const result = (o: Observations): ScenarioResult => ({ name: 'oil-trip', ok: true, failures: [], figures: { heatOffMs: 1000 }, obs: o });

t.test('simulated rig: true and reported temperature, wire and commanded power, limit, bound, marks', async (t) => {
  const svg = scenarioSvg(scenario, result(obs(true)));
  for (const s of ['true:oil', 'reported:oil', 'wire:fryer', 'commanded:fryer']) t.match(svg, `data-series="${s}"`);
  t.match(svg, 'data-limit="oil.device_max"');
  t.match(svg, 'bound: oil true ≤ 185 °C');
  t.same(
    marks(result(obs(true))).map((m) => [m.label, m.t]),
    [
      ['fault', 2000],
      ['trip (frozen_reading)', 3000],
      ['heat off', 3000],
    ],
  );
  t.match(svg, /data-mark="trip \(frozen_reading\)" data-t="3000"/);
});

t.test('hardware rig: only what Hearth read and commanded, said so', async (t) => {
  const svg = scenarioSvg(scenario, result(obs(false)));
  t.match(svg, 'data-series="reported:oil"');
  t.match(svg, 'data-series="commanded:fryer"');
  t.notMatch(svg, 'data-series="true:');
  t.notMatch(svg, 'data-series="wire:');
  t.match(svg, 'a hardware rig: no true temperature or wire power to draw');
  t.match(svg, 'data-limit="oil.device_max"', 'the limit of a sensor that read hot');
});

t.test('a skipped scenario: its reason instead of a chart', async (t) => {
  const svg = scenarioSvg(scenario, { name: 'oil-trip', ok: true, skipped: 'simulated only', failures: [], figures: {} });
  t.match(svg, '>simulated only</text>');
});
