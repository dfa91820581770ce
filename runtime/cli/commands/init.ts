/** `hearth init`: a fresh, empty store in the data directory; `--force` moves an existing (or broken) one aside. */
import { resolve } from 'node:path';
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

export const registerInit: RegisterCommand = (program) => {
  program.addCommand(
    new Command('init')
      .description('make a fresh store (hearth.db) in the data directory; --force moves an existing one aside, never deletes it')
      .option('--data-dir <dir>', 'the data directory (default ./var)')
      .option('--force', 'replace an existing store: it is renamed hearth.db.replaced-<time>')
      .option('--json', 'print JSON')
      .action(async (o: { dataDir?: string; force?: boolean; json?: boolean }) => {
        const { initDatabase } = await import('../../store/db.js');
        const { ConfigError } = await import('../../config/config.js');
        const { CliError } = await import('../errors.js');
        const { lockDataDir } = await import('../../app/data-dir-lock.js');
        const dir = resolve(o.dataDir ?? 'var');
        const { mkdirSync } = await import('node:fs');
        mkdirSync(dir, { recursive: true });
        // Never under a running `hearth start`: it holds the same lock (exit 2 naming its pid).
        const lock = await lockDataDir(dir);
        let r: { path: string; movedTo?: string };
        try {
          r = initDatabase(dir, { force: o.force === true });
        } catch (err) {
          if (err instanceof ConfigError) throw new CliError(err.message);
          throw err;
        } finally {
          await lock.release();
        }
        if (o.json) process.stdout.write(`${JSON.stringify(r)}\n`);
        else
          process.stdout.write(
            `new empty store at ${r.path}${r.movedTo ? ` (the old one is at ${r.movedTo})` : ''}; tokens and keys start empty: hearth token create\n`,
          );
      }),
  );
};
