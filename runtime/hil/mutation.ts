/**
 * The HIL half of the mutation run, for `hearth safety-report`: for each safety control, every HIL scenario
 * that names it in `controls:` runs again with that control switched off, and must then fail ("killed").
 *
 * This is the one place in the shipped code that sets the switch `controlActive` (safety/controls.ts) reads,
 * and it does so only around a scenario on the SIMULATED rig with a manual clock: runScenario is called here
 * without a rig file, so the stack writes its own simulated rig file, whatever rig the report's HIL run used.
 * No control is ever switched off with real heaters, and the switch is removed when the scenario ends,
 * whatever happens. The process-level scenarios (spawned hubs, the heat guard, Node-RED) need the test
 * harness and stay with `npm run hil:mutants` in a checkout.
 */
import { SAFETY_CONTROLS, type SafetyControl } from '../../safety/controls.js';
import { runScenario } from './runner.js';
import type { Scenario } from './scenario.js';

/** The key safety/controls.ts reads (Symbol.for: the same symbol in every module of the process). */
const DISABLED = Symbol.for('hearth.test-support.disabled-safety-controls');

export type Verdict = 'killed' | 'SURVIVED' | 'FAILS WITH EVERY CONTROL ON';

export interface HilMutant {
  control: SafetyControl;
  scenario: string;
  verdict: Verdict;
  /** Why the mutant failed (killed), or what the surviving run saw. */
  why: string;
  ms: number;
}

/** Run one scenario on the simulated rig with `control` off; the switch is cleared afterwards. */
async function withoutControl(s: Scenario, control: SafetyControl): Promise<{ ok: boolean; why: string }> {
  const g = globalThis as Record<symbol, unknown>;
  g[DISABLED] = new Set([control]);
  try {
    const r = await runScenario(s);
    return { ok: r.ok, why: r.failures[0] ?? '' };
  } catch (err) {
    return { ok: false, why: (err as Error).message };
  } finally {
    delete g[DISABLED];
  }
}

/**
 * Every (control, HIL scenario) pair. `baseOk` says whether the scenario passed on the simulated rig with every
 * control on (the report's own run, when that was on the simulated rig); without it each scenario runs that
 * way here first. One that fails with every control on is reported as such: its failing mutant proves nothing.
 */
export async function hilMutationRun(
  scenarios: readonly Scenario[],
  baseOk?: (name: string) => boolean,
  onRow?: (row: HilMutant) => void,
): Promise<HilMutant[]> {
  const rows: HilMutant[] = [];
  const bases = new Map<string, boolean>();
  const passes = async (s: Scenario) => {
    if (baseOk) return baseOk(s.name);
    if (!bases.has(s.name))
      bases.set(
        s.name,
        await runScenario(s).then(
          (r) => r.ok,
          () => false,
        ),
      );
    return bases.get(s.name) as boolean;
  };
  for (const control of SAFETY_CONTROLS)
    for (const s of scenarios.filter((x) => x.controls?.includes(control))) {
      const began = Date.now();
      let row: HilMutant;
      if (!(await passes(s))) row = { control, scenario: s.name, verdict: 'FAILS WITH EVERY CONTROL ON', why: '', ms: 0 };
      else {
        const m = await withoutControl(s, control);
        row = { control, scenario: s.name, verdict: m.ok ? 'SURVIVED' : 'killed', why: m.why, ms: Date.now() - began };
      }
      rows.push(row);
      onRow?.(row);
    }
  return rows;
}
