// @slow: replays every HIL scenario on the simulated rig (npm run test:fast skips this file; npm test runs it)
/**
 * Every hardware-in-the-loop scenario on the simulated rig, one subtest each: outputs and timings as the
 * scenario file states them (see docs/hil.md). The checks themselves are tested in expect.test.ts.
 */
import { basename } from 'node:path';
import t from 'tap';
import { runScenario } from '../runtime/hil/runner.js';
import { loadScenario, scenarioFiles } from '../runtime/hil/scenario.js';

const files = scenarioFiles();

t.test('there is a scenario for every fault the issue names', async (t) => {
  const names = files.map((f) => basename(f).replace(/\.ya?ml$/, ''));
  for (const n of [
    'koshari-fry-served',
    'oil-open-circuit-mid-fry',
    'welded-relay',
    'dead-heater',
    'stalled-loop',
    'limit-above-device-dry-run',
    'limit-clamped-at-run-time',
    'presence-lost-mid-fry',
    'ladder-boil-no-fallback',
    'ladder-reduce-falls-to-person',
    'recipe-widens-envelope',
    'limit-raise-refused',
    'frozen-oil-below-target',
    'frozen-oil-at-target',
    'frozen-oil-above-target',
    'oil-short-mid-heat',
    'full-power-past-target',
    'oil-heated-by-any-op',
    'oil-i2c-lost',
    'oil-sensors-disagree',
    'presence-lost-nobody-returns',
    'lease-not-renewed',
    'recall-while-cooking',
    'recall-block-lets-running-finish',
  ])
    t.ok(names.includes(n), n);
});

for (const file of files) {
  const s = loadScenario(file);
  t.test(`${s.name}: ${s.description.split('. ')[0]}`, async (t) => {
    const r = await runScenario(s);
    t.same(r.failures, [], s.name);
    t.notOk(r.skipped, 'runs on the simulated rig');
  });
}
