/**
 * Frozen oil reading during koshari's deep fry at 175 °C (the HIL scenario frozen-oil-below-target, with the
 * frozen value swept below, at and above the target): simulated time from the freeze to the trip, the trip's
 * reason, and the peak TRUE oil temperature (the simulated rig's physics, not a reading). Targets (issue 12):
 * trip within 60 s simulated, peak within 10 °C of the target. Prints figures; never asserts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { runScenario } from '../runtime/hil/runner.js';
import { parseScenario, scenarioDir } from '../runtime/hil/scenario.js';

const TARGET_C = 175;
const base = parse(readFileSync(join(scenarioDir, 'frozen-oil-below-target.yaml'), 'utf8')) as {
  timeline: { temperature?: { tempC: number }; fault?: { value: number } }[];
  expect: Record<string, unknown>;
};

// The scenario puts the oil at the frozen value when the deep fry begins (a reading frozen at 185 °C is a pot
// that was at 185 °C), so above the target the peak is at least that value by construction: the last column is
// how far the true oil rose above both the target and where the scenario put it.
console.log(
  'frozen at | vs target | trip after freeze (sim) | trip reason          | peak true oil | peak − target | rise above max(target, frozen)',
);
const rows: { trip: number; over: number; rise: number }[] = [];
for (const frozenC of [160, 165, 170, 172, 175, 178, 180, 185]) {
  const doc = structuredClone(base);
  for (const e of doc.timeline) {
    if (e.temperature) e.temperature.tempC = frozenC;
    if (e.fault) e.fault.value = frozenC;
  }
  // Only what the bench reads: the trip and the true temperature (the scenario's own expectations are the test's).
  doc.expect = { tripWithin: { within: '10m' } };
  const s = parseScenario({ ...doc, name: `frozen-at-${frozenC}` }, `frozen at ${frozenC} °C`);
  const r = await runScenario(s);
  const trip = r.figures.tripMs;
  const reason = (r.obs?.bus.find((b) => b.name === 'safety' && b.payload.kind === 'trip')?.payload.trip as { reason?: string } | undefined)
    ?.reason;
  const peak = r.obs?.trueMaxC.oil ?? Number.NaN;
  const rel = frozenC < TARGET_C ? 'below' : frozenC === TARGET_C ? 'at' : 'above';
  const rise = peak - Math.max(TARGET_C, frozenC);
  rows.push({ trip: trip ?? Number.POSITIVE_INFINITY, over: peak - TARGET_C, rise });
  console.log(
    `${String(frozenC).padStart(6)} °C | ${rel.padEnd(9)} | ${(trip === undefined ? 'no trip' : `${(trip / 1000).toFixed(2)} s`).padStart(23)} | ${(reason ?? '-').padEnd(20)} | ${peak.toFixed(1).padStart(10)} °C | ${(peak - TARGET_C).toFixed(1).padStart(10)} °C | ${rise.toFixed(1).padStart(10)} °C`,
  );
}
const worstTrip = Math.max(...rows.map((r) => r.trip));
const worstRise = Math.max(...rows.map((r) => r.rise));
const worstBelowAt = Math.max(...rows.filter((_, i) => i < 5).map((r) => r.over));
console.log(
  `worst: trip ${(worstTrip / 1000).toFixed(2)} s after the freeze (target ≤ 60 s); peak ${worstBelowAt.toFixed(1)} °C over the target when frozen below or at it, ${worstRise.toFixed(1)} °C rise at worst (target ≤ 10 °C)`,
);
process.exit(0);
