/**
 * Run a set of HIL scenarios one after another, as `hearth hil` and `hearth safety-report` do: on the simulated
 * rig, or on the rig a rig file describes. On a hardware rig a scenario that needs a person (one at the
 * e-stop while oil heats, or a fault made by hand) prompts on the terminal and waits for Enter; when the run is
 * not interactive (no terminal, or CI) it is skipped with that reason instead.
 */
import { performance } from 'node:perf_hooks';
import { createInterface, type Interface } from 'node:readline/promises';
import { loadRigConfig } from '../../drivers/rig.js';
import { CliError } from '../../platform/cli-error.js';
import { runScenario, type ScenarioResult } from './runner.js';
import { loadScenario, resolveScenario, type Scenario, ScenarioError, scenarioFiles } from './scenario.js';

/** The scenarios named (by name or path), or every one; a bad file is a CliError. */
export function loadScenarios(names: readonly string[]): Scenario[] {
  try {
    const files = names.length > 0 ? names.map(resolveScenario) : scenarioFiles();
    return files.map(loadScenario);
  } catch (err) {
    if (err instanceof ScenarioError) throw new CliError(err.message);
    throw err;
  }
}

/** Whether the rig file names a hardware rig (a bad rig file is a CliError). */
export function isHardwareRig(rigFile: string | undefined): boolean {
  if (rigFile === undefined) return false;
  try {
    return loadRigConfig(rigFile).kind !== 'simulated';
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

const WORLD = ['presence', 'fault', 'clearFaults', 'temperature'] as const;

/** On a real rig: a person must be there (at the e-stop while it heats, or to make a fault or walk away). */
export function needsPerson(s: Scenario): boolean {
  return s.hardware === 'estop' || s.presentAtStart === true || (s.timeline ?? []).some((e) => WORLD.some((k) => k in e));
}

/** A terminal a person can answer on (not CI). */
export function interactive(): boolean {
  return process.stdin.isTTY === true && !process.env.CI;
}

export interface RunAllOptions {
  rigFile?: string;
  /** Told each result as it is decided. */
  onResult?: (r: ScenarioResult, s: Scenario) => void;
}

export async function runAll(scenarios: readonly Scenario[], o: RunAllOptions = {}): Promise<ScenarioResult[]> {
  const hardware = isHardwareRig(o.rigFile);
  const canAsk = hardware && interactive();
  let rl: Interface | undefined;
  const ask = async (instruction: string) => {
    rl ??= createInterface({ input: process.stdin, output: process.stdout });
    await rl.question(`  → ${instruction}; press Enter when done `);
  };
  const results: ScenarioResult[] = [];
  try {
    for (const s of scenarios) {
      let r: ScenarioResult;
      const began = performance.now();
      if (hardware && s.hardware !== 'simulated-only' && needsPerson(s) && !canAsk) {
        r = {
          name: s.name,
          ok: true,
          skipped: 'needs a person at the rig, and this run is not interactive: no terminal, or CI',
          failures: [],
          figures: {},
        };
      } else {
        try {
          if (canAsk && s.hardware === 'estop') await ask(`${s.name}: stand at the emergency stop, with a lid and a fire blanket at hand`);
          r = await runScenario(s, { ...(o.rigFile ? { rigFile: o.rigFile } : {}), ...(canAsk ? { ask } : {}) });
        } catch (err) {
          r = { name: s.name, ok: false, failures: [(err as Error).message], figures: {} };
        }
      }
      r.ms = Math.round(performance.now() - began);
      results.push(r);
      o.onResult?.(r, s);
    }
  } finally {
    rl?.close();
  }
  return results;
}

/** `N passed, N failed[, N skipped]` counts. */
export function totals(results: readonly ScenarioResult[]): { passed: number; failed: number; skipped: number } {
  return {
    passed: results.filter((r) => r.ok && !r.skipped).length,
    failed: results.filter((r) => !r.ok).length,
    skipped: results.filter((r) => r.skipped).length,
  };
}
