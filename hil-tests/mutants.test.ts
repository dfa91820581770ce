// @slow: the mutation run: every control switched off in turn, process scenarios spawned (npm run test:fast skips this file; npm test runs it)
/**
 * The mutation run in `npm test`: every control in SAFETY_CONTROLS has a scenario, and each scenario fails
 * when its control is switched off (no survivor). The HIL scenarios' every-control-on runs are in hil.test.ts;
 * the process-level scenarios run both ways here.
 */
import t from 'tap';
import { SAFETY_CONTROLS } from '../safety/controls.js';
import { mutationRun, rowLine } from './mutation-run.js';

t.test('every safety control is killed by its scenarios', async (t) => {
  const rows = await mutationRun({ skipHilBase: true, onRow: (r) => t.comment(rowLine(r)) });
  for (const r of rows) t.equal(r.verdict, 'killed', rowLine(r));
  for (const c of SAFETY_CONTROLS)
    t.ok(
      rows.some((r) => r.control === c && r.verdict === 'killed'),
      `${c} has a scenario that kills it`,
    );
});
