/** `hearth rig check <file>`: validate a rig file and, with --probe, open the rig and read every sensor once. */
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

export const registerRig: RegisterCommand = (program) => {
  const rig = new Command('rig').description('kitchen rig files (hardware and simulated)');
  rig
    .command('check')
    .description(
      'validate a rig file (JSON or YAML); with --probe, print where each GPIO line is on this board (header GPIO → chip line, sysfs number), open the rig, read each sensor and input once, then switch everything off',
    )
    .argument('<file>', 'rig file, e.g. drivers/examples/rig.hardware.yaml')
    .option('--probe', 'open the buses and probe every device (needs the hardware for a hardware rig)')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, opts: { probe?: boolean; json?: boolean }) => {
      const { checkRig, formatRigCheck } = await import('./rig-check.js');
      let printed = false;
      // Human output: the GPIO mapping first, before any device is opened.
      const onGpio = (lines: string[]) => {
        if (opts.json || lines.length === 0) return;
        process.stdout.write(`${file}: GPIO lines on this board\n${lines.join('\n')}\n`);
        printed = true;
      };
      const result = await checkRig(file, opts.probe === true, onGpio);
      process.stdout.write(opts.json ? `${JSON.stringify(result)}\n` : formatRigCheck(result, printed));
    });
  program.addCommand(rig);
};
