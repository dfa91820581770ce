/** The implementation of `hearth safe-off`: loaded only when that command runs. */
import { loadRigConfig, type RigConfig } from '../../../drivers/rig-config.js';
import { type SafeOffResult, safeOff } from '../../../drivers/safe-off.js';
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

export async function runSafeOff(opts: { config?: string; rig?: string }): Promise<number> {
  const rig = rigConfigFor(opts);
  const results = await safeOff(rig);
  if (rig.kind === 'simulated') {
    process.stdout.write('simulated rig: its outputs live inside the hearth process; nothing outside it to switch off\n');
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
