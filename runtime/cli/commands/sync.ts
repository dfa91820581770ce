/** `hearth sync`: bring the device's recipes and recalls in step with signed static indexes, once. */
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export const registerSync: RegisterCommand = (program) => {
  program.addCommand(
    new Command('sync')
      .description('sync recipes and recalls from signed static indexes into the store, once (docs/sync.md)')
      .requiredOption('--index <url>', 'index base URL (repeatable; the first one wins for a recipe id several publish)', collect)
      .requiredOption('--trust <file>', 'key records whose signatures count (a record, an array or a discovery file)')
      .option('--data-dir <dir>', 'the store (default ./var)')
      .option('--timeout <seconds>', 'time limit of each request (default 15)')
      .option('--json', 'print the results as JSON')
      .action(async (opts: { index: string[]; trust: string; dataDir?: string; timeout?: string; json?: boolean }) => {
        const { runSync } = await import('../../sync/cli.js');
        await runSync(opts);
      }),
  );
};
