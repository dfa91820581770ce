// @slow: runs docs/executor.md's walkthrough, koshari cooked to served, against a started hub (npm run test:fast skips this file; npm test runs it)
/**
 * docs/executor.md's walkthrough as a user pastes it (the runner and its two port substitutions are in
 * test-support/walkthrough.ts): koshari is cooked to `served` through about 150 simulated minutes, then a second
 * run is stopped mid-heat and the simulated rig shows every heater without power.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { repoRoot } from '../../test-support/cli.js';
import { runBlock, walkthroughBlock } from '../../test-support/walkthrough.js';

// Two and a half simulated hours in manual steps: on a loaded 2-core machine that can take minutes.
t.setTimeout(900_000);

t.test("docs/executor.md's walkthrough runs verbatim: koshari served, then a stop mid-heat leaves every heater off", async (t) => {
  const doc = readFileSync(join(repoRoot, 'docs/executor.md'), 'utf8');
  const { answers, detail } = await runBlock(t, walkthroughBlock(doc, '## Walkthrough (simulated fryer, paste into a shell)'));
  const log = answers.find((a) => a.kind === 'ExecutionLog');
  t.equal(log?.outcome, 'served', 'the log of the first run says served', detail);
  const sim = answers.at(-1) as { heaters?: Record<string, number> } | undefined;
  t.ok(sim?.heaters && Object.keys(sim.heaters).length > 0, 'the last answer is the simulated rig state', detail);
  t.same(
    Object.values(sim?.heaters ?? {}).filter((p) => p !== 0),
    [],
    'after the stop every heater of the simulated rig carries no power',
    detail,
  );
});
