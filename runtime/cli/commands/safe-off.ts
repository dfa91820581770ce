/**
 * `hearth safe-off`: drive every heater output the rig configuration names to its physical off level, from
 * the rig configuration alone (no database, no network, no running hearth). The systemd unit runs it before
 * start and after stop; run it by hand after a crash. Exit 0 when every output is off, 1 otherwise.
 */
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

export const registerSafeOff: RegisterCommand = (program) => {
  program.addCommand(
    new Command('safe-off')
      .description('switch every heater output of the rig off from the rig file alone (no database, no network)')
      .option('--config <file>', 'config file whose rig to switch off (the same one hearth start uses)')
      .option('--rig <rig>', 'a rig file, or "simulated" (overrides the config file)')
      .option('--data-dir <dir>', 'simulated rig: the data directory whose heater wires to switch off (default ./var)')
      .action(async (opts: { config?: string; rig?: string; dataDir?: string }) => {
        const { runSafeOff } = await import('./safe-off-run.js');
        process.exitCode = await runSafeOff(opts);
      }),
  );
};
