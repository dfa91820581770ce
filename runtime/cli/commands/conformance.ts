/** `hearth conformance`: run the svc conformance vectors against this build's rules. */
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import type { RegisterCommand } from './types.js';

export const registerConformance: RegisterCommand = (program: Command) => {
  program
    .command('conformance')
    .description('run the svc conformance vectors (every kind) and print one line per vector')
    .option('--vectors <dir>', 'directory of vector files, searched recursively (default: ../shared/reference/conformance)')
    .option('--json', 'print the results as JSON')
    .option('--report <file>', 'write a signed ConformanceReport to this file (needs --key)')
    .option('--key <keyfile>', 'key file (as written by `hearth keygen`) that signs the report')
    .action(async (opts: { vectors?: string; json?: boolean; report?: string; key?: string }) => {
      const { runConformance } = await import('../../../conformance/cli.js');
      const code = runConformance(opts, {
        out: (line) => process.stdout.write(`${line}\n`),
        badInput: (message) => new CliError(message),
      });
      process.exitCode = code;
    });
};
