/**
 * The mutation run: prove that each safety control's scenarios can fail. For every control in
 * safety/controls.ts SAFETY_CONTROLS, every HIL scenario that names it in `controls:` and every process-level
 * scenario that names it (test-support/output-scenarios.ts, mutants-hub-scenarios.ts, guard-scenarios.ts) runs once
 * with every control on (it must pass) and once with that control switched off through the test-only seam (it
 * must fail). Used by `npm run hil:mutants` (hil-tests/mutants.ts) and by `npm test` (hil-tests/mutants.test.ts).
 */

import { runScenario } from '../runtime/hil/runner.js';
import { loadScenario, type Scenario, scenarioFiles } from '../runtime/hil/scenario.js';
import { SAFETY_CONTROLS, type SafetyControl } from '../safety/controls.js';
import { guardScenarios } from '../test-support/guard-scenarios.js';
import { withDisabled } from '../test-support/mutants.js';
import { hubScenarios } from '../test-support/mutants-hub-scenarios.js';
import { type OutputScenario, outputScenarios } from '../test-support/output-scenarios.js';

export type Verdict = 'killed' | 'SURVIVED' | 'FAILS WITH EVERY CONTROL ON' | 'NOT COVERED' | 'NO SUCH CONTROL';

export interface MutantRow {
  control: string;
  /** The scenario's name; `(no scenario)` for a control nothing proves. */
  scenario: string;
  verdict: Verdict;
  /** Why the scenario failed (killed, or failing with every control on), or what the surviving run saw. */
  why: string;
  ms: number;
}

export interface MutationRunOptions {
  /** Only these controls (default: every one). */
  controls?: readonly string[];
  /**
   * Skip the every-control-on run of the HIL scenarios: `npm test` runs each of them that way in
   * hil-tests/hil.test.ts already. Process-level scenarios always run both ways.
   */
  skipHilBase?: boolean;
  /** Told each row as it is decided. */
  onRow?: (row: MutantRow) => void;
}

/** Every process-level scenario the run knows. */
export const processScenarios: readonly OutputScenario[] = [...outputScenarios, ...hubScenarios, ...guardScenarios];

interface Proof {
  name: string;
  hil: boolean;
  spawns?: boolean;
  run(disabled: SafetyControl[]): Promise<{ ok: boolean; why: string }>;
}

async function hil(s: Scenario, disabled: SafetyControl[]): Promise<{ ok: boolean; why: string }> {
  try {
    const r = await withDisabled(disabled, () => runScenario(s));
    return { ok: r.ok, why: r.failures[0] ?? '' };
  } catch (err) {
    return { ok: false, why: (err as Error).message };
  }
}

async function proc(s: OutputScenario, disabled: SafetyControl[]): Promise<{ ok: boolean; why: string }> {
  try {
    const r = await s.run({ disabled: new Set(disabled) });
    return { ok: r.ok, why: r.detail };
  } catch (err) {
    return { ok: false, why: (err as Error).message };
  }
}

/** The line `npm run hil:mutants` prints for a row. */
export function rowLine(r: MutantRow): string {
  const why = r.verdict === 'killed' || r.verdict === 'NOT COVERED' || r.verdict === 'NO SUCH CONTROL' ? '' : ` (${r.why})`;
  return `${r.control} → ${r.scenario} → ${r.verdict}${why}${r.ms > 0 ? ` (${(r.ms / 1000).toFixed(1)} s)` : ''}`;
}

export async function mutationRun(o: MutationRunOptions = {}): Promise<MutantRow[]> {
  const rows: MutantRow[] = [];
  const push = (r: MutantRow) => {
    rows.push(r);
    o.onRow?.(r);
  };
  const scenarios = scenarioFiles().map(loadScenario);
  let spawned: Promise<void> = Promise.resolve();
  const known = SAFETY_CONTROLS as readonly string[];
  for (const s of scenarios)
    for (const c of s.controls ?? [])
      if (!known.includes(c)) push({ control: c, scenario: s.name, verdict: 'NO SUCH CONTROL', why: '', ms: 0 });
  for (const control of SAFETY_CONTROLS) {
    if (o.controls && !o.controls.includes(control)) continue;
    const proving: Proof[] = [
      ...scenarios
        .filter((s) => s.controls?.includes(control))
        .map((s) => ({ name: s.name, hil: true, run: (d: SafetyControl[]) => hil(s, d) })),
      ...processScenarios
        .filter((s) => s.control === control)
        .map((s) => ({ name: s.id ?? s.name, hil: false, spawns: s.spawns, run: (d: SafetyControl[]) => proc(s, d) })),
    ];
    if (proving.length === 0) push({ control, scenario: '(no scenario)', verdict: 'NOT COVERED', why: '', ms: 0 });
    for (const p of proving) {
      const decide = async () => {
        const began = Date.now();
        // A spawned subject's two runs are two processes: start the mutant beside the base run.
        const early = p.spawns ? p.run([control]) : undefined;
        if (!(p.hil && o.skipHilBase)) {
          const base = await p.run([]);
          if (!base.ok) {
            await early;
            push({ control, scenario: p.name, verdict: 'FAILS WITH EVERY CONTROL ON', why: base.why, ms: Date.now() - began });
            return;
          }
        }
        const mutant = await (early ?? p.run([control]));
        push({ control, scenario: p.name, verdict: mutant.ok ? 'SURVIVED' : 'killed', why: mutant.why, ms: Date.now() - began });
      };
      // A scenario whose subject is a spawned process (switched off there by preload, not by this process's
      // seam) overlaps the in-process ones; those run one at a time, since the seam is global to the process.
      if (p.spawns) spawned = spawned.then(decide);
      else await decide();
    }
  }
  await spawned;
  return rows;
}
