/**
 * `npm run hil:mutants`: prove that each safety control's scenarios can fail. For every control in
 * safety/controls.ts SAFETY_CONTROLS, every HIL scenario that names it in `controls:` is run once with all
 * controls on (it must pass) and once with that control switched off through the test-only seam (it must
 * fail). Prints `control → scenario → killed` per line; exit 1 when a mutant survives, a scenario fails with
 * every control on, or a control has no scenario. Process-level scenarios (test-support/output-scenarios.ts,
 * `run({disabled})`) are run the same way for the control each names.
 */
import { SAFETY_CONTROLS, type SafetyControl } from '../safety/controls.js';
import { withDisabled } from '../test-support/mutants.js';
import { type OutputScenario, outputScenarios } from '../test-support/output-scenarios.js';
import { runScenario } from './runner.js';
import { loadScenario, type Scenario, scenarioFiles } from './scenario.js';

async function passes(s: Scenario, disabled: SafetyControl[]): Promise<{ ok: boolean; why: string }> {
  try {
    const r = await withDisabled(disabled, () => runScenario(s));
    return { ok: r.ok, why: r.failures[0] ?? '' };
  } catch (err) {
    return { ok: false, why: (err as Error).message };
  }
}

async function runs(s: OutputScenario, disabled: SafetyControl[]): Promise<{ ok: boolean; why: string }> {
  try {
    const r = await s.run({ disabled: new Set(disabled) });
    return { ok: r.ok, why: r.detail };
  } catch (err) {
    return { ok: false, why: (err as Error).message };
  }
}

async function main(): Promise<number> {
  const scenarios = scenarioFiles().map(loadScenario);
  let bad = 0;
  for (const s of scenarios)
    for (const c of s.controls ?? [])
      if (!(SAFETY_CONTROLS as readonly string[]).includes(c)) {
        process.stdout.write(`${c} → ${s.name} → NO SUCH CONTROL\n`);
        bad++;
      }
  for (const control of SAFETY_CONTROLS) {
    const proving = [
      ...scenarios.filter((s) => s.controls?.includes(control)).map((s) => ({ name: s.name, run: (d: SafetyControl[]) => passes(s, d) })),
      ...outputScenarios.filter((s) => s.control === control).map((s) => ({ name: s.name, run: (d: SafetyControl[]) => runs(s, d) })),
    ];
    if (proving.length === 0) {
      process.stdout.write(`${control} → (no scenario) → NOT COVERED\n`);
      bad++;
      continue;
    }
    for (const s of proving) {
      const base = await s.run([]);
      if (!base.ok) {
        process.stdout.write(`${control} → ${s.name} → FAILS WITH EVERY CONTROL ON (${base.why})\n`);
        bad++;
        continue;
      }
      const mutant = await s.run([control]);
      process.stdout.write(`${control} → ${s.name} → ${mutant.ok ? 'SURVIVED' : 'killed'}\n`);
      if (mutant.ok) bad++;
    }
  }
  process.stdout.write(bad === 0 ? 'every control killed\n' : `${bad} problem(s)\n`);
  return bad === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`hil:mutants: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
