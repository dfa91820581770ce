/** `hearth catalog generate`: a seeded synthetic recipe catalog for tests and benchmarks. */
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

export const registerCatalog: RegisterCommand = (program) => {
  const catalog = new Command('catalog').description('synthetic recipe catalogs');
  catalog
    .command('generate')
    .description('write N synthetic recipes with valid hashes; the same seed gives byte-identical files')
    .requiredOption('--count <n>', 'how many recipes (1 to 5000)')
    .requiredOption('--seed <seed>', 'seed text; the same seed gives the same catalog')
    .requiredOption('--out <dir>', 'output folder (created if missing)')
    .option(
      '--shape <shape>',
      'plain (recipe fields) or catalog (plus nutrition, cost, diet claims, sources, as the recipe API reads)',
      'plain',
    )
    .option('--json', 'print the result as JSON')
    .action(async (opts: { count: string; seed: string; out: string; shape: string; json?: boolean }) => {
      const { CliError } = await import('../errors.js');
      const count = Number(opts.count);
      if (!/^\d+$/.test(opts.count) || count < 1 || count > 5000) throw new CliError('--count must be an integer from 1 to 5000');
      if (opts.shape !== 'plain' && opts.shape !== 'catalog') throw new CliError('--shape must be plain or catalog');
      const { writeCatalog } = await import('../../../services/catalog/generate.js');
      let names: string[];
      try {
        names = writeCatalog(opts.out, count, opts.seed, opts.shape);
      } catch (err) {
        throw new CliError(`cannot write the catalog to ${opts.out}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      if (opts.json) process.stdout.write(`${JSON.stringify({ out: opts.out, count: names.length, seed: opts.seed })}\n`);
      else process.stdout.write(`wrote ${names.length} recipes to ${opts.out} (seed ${JSON.stringify(opts.seed)})\n`);
    });
  program.addCommand(catalog);
};
