// @slow: the hostile-input harness against a started hub (npm run test:fast skips this file; npm test runs it)
/**
 * A short run of the hostile-input harness (fuzz.ts) inside `npm test`: a few hundred seeded malformed and
 * cross-scope calls over every surface of a real hub, a sample of the scope matrix, and every stop. `npm run fuzz`
 * runs the full one (30 000 requests).
 */
import t from 'tap';
import { runFuzz, SURFACES } from './fuzz.js';

t.test('hostile input: no 5xx, every error a problem document, no hang, scope matrix right, every stop cuts heat', async (t) => {
  const r = await runFuzz({ seed: 7, requests: 300, concurrency: 2 });
  t.same(r.failures, [], 'no failures');
  for (const s of SURFACES) {
    const tally = r.bySurface[s];
    t.ok(tally.sent > 0, `${s}: exercised (${tally.sent})`);
    t.equal(tally.server5xx + tally.notProblem + tally.hangs, 0, `${s}: no 5xx, no non-problem error, no hang`);
    t.equal(tally.internal, 0, `${s}: no JSON-RPC -32603 (internal error) answer`);
  }
  t.ok(r.stops.length >= 5 && r.stops.every((s) => s.heatCut), 'every stop cut the heat of the simulated fryer');
  t.equal(r.spoofsSeen, 0, 'no safety message on the bus that the hub did not journal');
  t.ok(r.rssAfterMb - r.rssBeforeMb < 30, `RSS within 30 MB of before (${r.rssBeforeMb.toFixed(1)} → ${r.rssAfterMb.toFixed(1)} MB)`);
});
