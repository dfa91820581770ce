/** The implementation of `hearth safe-off`: loaded only when that command runs. */
import { type SafeOffResult, safeOff } from '../../../drivers/safe-off.js';
import { loadRigForSafeOff, type SafeOffRigFile } from '../../../drivers/safe-off-rig.js';
import { simWireRoot } from '../../../drivers/sim/wires.js';
import { resolveConfig } from '../../config/config.js';
import { CliError } from '../errors.js';

/**
 * The rig `hearth start` would use with the same `--config` and `--rig`, read for safe-off: a rig file that
 * fails validation still yields the outputs it identifies (drivers/safe-off-rig.ts), with the problem.
 */
export function rigFileFor(opts: { config?: string; rig?: string }): SafeOffRigFile {
  let rig: string;
  try {
    rig = resolveConfig(opts).rig;
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  if (rig === 'simulated') return { rig: { kind: 'simulated' }, unidentified: [] };
  try {
    return loadRigForSafeOff(rig);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

export function formatSafeOff(results: SafeOffResult[]): string {
  return results.map((r) => (r.ok ? `${r.heater}: off (${r.target})\n` : `${r.heater}: NOT OFF (${r.target}): ${r.error}\n`)).join('');
}

/** The data directory `hearth start` would use with the same options. */
function dataDirFor(opts: { config?: string; rig?: string; dataDir?: string }): string {
  try {
    return resolveConfig(opts).dataDir;
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

export async function runSafeOff(opts: { config?: string; rig?: string; dataDir?: string }): Promise<number> {
  const { rig, problem, gpioProblem, unidentified } = rigFileFor(opts);
  const simWires = rig.kind === 'simulated' ? simWireRoot(dataDirFor(opts)) : undefined;
  // Cut first, whatever else is wrong with the file; report after.
  const results = await safeOff(rig, simWires ? { simWires } : {});
  if (rig.kind === 'simulated' && results.length === 0 && !problem) {
    process.stdout.write(`simulated rig: no heater wires under ${simWires}; nothing outside hearth to switch off\n`);
    return 0;
  }
  process.stdout.write(formatSafeOff(results));
  for (const u of unidentified) process.stdout.write(`${u.heater}: NOT OFF (output unknown): ${u.why}\n`);
  const failed = [...results.filter((r) => !r.ok).map((r) => r.heater), ...unidentified.map((u) => u.heater)];
  if (gpioProblem) {
    // One line: which lines do not resolve, the chips found and the remedy (every other output was cut).
    const others = failed.filter((h) => !problem?.includes(`heater "${h}"`));
    if (others.length > 0)
      process.stderr.write(`hearth: ${others.length} heater output(s) could not be switched off: ${others.join(', ')}\n`);
    process.stderr.write(`hearth: ${problem}\n`);
    return 1;
  }
  if (failed.length > 0)
    process.stderr.write(`hearth: ${failed.length} heater output(s) could not be switched off: ${failed.join(', ')}\n`);
  if (problem) {
    const cut = results.filter((r) => r.ok).length;
    process.stderr.write(`hearth: the rig file is not valid (${cut} output(s) it names were switched off anyway): ${problem}\n`);
  }
  return failed.length > 0 || problem ? 1 : 0;
}
