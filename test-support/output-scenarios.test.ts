/** Each output-side scenario passes with every control on and fails with its own control disabled. */
import t from 'tap';
import { outputScenarios } from './output-scenarios.js';

for (const s of outputScenarios) {
  t.test(`${s.control}: ${s.name}`, async (t) => {
    const normal = await s.run({ disabled: new Set() });
    t.ok(normal.ok, `passes with every control on: ${normal.detail}`);
    const mutant = await s.run({ disabled: new Set([s.control]) });
    t.notOk(mutant.ok, `fails without ${s.control}: ${mutant.detail}`);
  });
}
