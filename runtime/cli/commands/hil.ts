/**
 * `hearth hil` and `hearth safety-report`: run the hardware-in-the-loop scenarios (docs/hil.md), with JUnit XML and a
 * plotted report, or as a signed safety report (docs/safety-case.md).
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

export const registerSafetyReport: RegisterCommand = (program) => {
  program
    .command('safety-report')
    .description(
      'run the HIL scenarios and the mutation run, then write a signed report.json (hazard → control → scenario → bound → measured → killed by mutation) and report.html',
    )
    .option('--rig <file>', 'rig file (default: the simulated rig); the mutation run always uses the simulated rig')
    .requiredOption('--key <keyfile>', "the operator's Ed25519 key file, as hearth keygen writes it")
    .requiredOption('--out <dir>', 'folder to write report.json and report.html into (replaced as a whole)')
    .action(async (opts: { rig?: string; key: string; out: string }) => {
      const { safetyReportCommand } = await import('../../hil/safety-report.js');
      process.exitCode = await safetyReportCommand(opts);
    });
};
