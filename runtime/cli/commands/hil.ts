/**
 * `hearth hil`: run the hardware-in-the-loop scenarios (docs/hil.md), with JUnit XML and a plotted report.
 * Options are registered here; the runner loads only when the command runs.
 */
import type { RegisterCommand } from './types.js';

export const registerHil: RegisterCommand = (program) => {
  program
    .command('hil')
    .description('run the hardware-in-the-loop scenarios (every one, or those named); exit 1 when one fails')
    .argument('[scenario...]', 'scenario names (e.g. frozen-oil-below-target) or scenario files')
    .option('--rig <file>', 'rig file (simulated or hardware); default: the simulated rig with each scenario’s options')
    .option('--json', 'print the results as JSON')
    .option('--junit <file>', 'write JUnit XML: one testcase per scenario')
    .option('--report <dir>', 'write index.html and one SVG chart per scenario into this folder')
    .action(async (names: string[], opts: { rig?: string; json?: boolean; junit?: string; report?: string }) => {
      const { hilCommand } = await import('../../hil/hil-command.js');
      process.exitCode = await hilCommand(names, opts);
    });
};
