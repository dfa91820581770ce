/**
 * The `hearth` command line. Each command lives in its own module under ./commands and registers itself
 * on the shared commander program. Errors become one readable line on stderr and a non-zero exit code.
 */
import { Command, CommanderError } from 'commander';
import { commands } from './commands/index.js';
import { CliError } from './errors.js';

export async function main(argv: string[]): Promise<number> {
  const program = new Command('hearth')
    .description('Hearth: hub and executor runtime for svc kitchen devices')
    .version(process.env.npm_package_version ?? '0.1.0')
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  for (const register of commands) register(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version arrive here as "errors" with exit code 0.
      return err.exitCode;
    }
    if (err instanceof CliError) {
      process.stderr.write(`hearth: ${err.message}\n`);
      return err.exitCode;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`hearth: ${message}\n`);
    return 1;
  }
}
