/** The implementation of `hearth safe-off`: loaded only when that command runs. */
import { loadRigConfig, type RigConfig } from '../../../drivers/rig-config.js';
import { type SafeOffResult, safeOff } from '../../../drivers/safe-off.js';
import { simWireRoot } from '../../../drivers/sim/wires.js';
import { ConfigError, resolveConfig } from '../../config/config.js';
import { CliError } from '../errors.js';

/** The rig configuration `hearth start` would use with the same `--config` and `--rig`. */
export function rigConfigFor(opts: { config?: string; rig?: string }): RigConfig {
  try {
    const config = resolveConfig(opts);
    return config.rig === 'simulated' ? { kind: 'simulated' } : loadRigConfig(config.rig);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof Error) throw new CliError(err.message);
    throw err;
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
  const rig = rigConfigFor(opts);
  const simWires = rig.kind === 'simulated' ? simWireRoot(dataDirFor(opts)) : undefined;
  const results = await safeOff(rig, simWires ? { simWires } : {});
  if (rig.kind === 'simulated' && results.length === 0) {
    process.stdout.write(`simulated rig: no heater wires under ${simWires}; nothing outside hearth to switch off\n`);
    return 0;
  }
  process.stdout.write(formatSafeOff(results));
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0)
    process.stderr.write(
      `hearth: ${failed.length} heater output(s) could not be switched off: ${failed.map((r) => r.heater).join(', ')}\n`,
    );
  return failed.length > 0 ? 1 : 0;
}
