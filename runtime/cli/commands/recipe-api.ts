/** `hearth recipe-api serve`: the read-only recipe API over a catalog folder (spec §4.5). */
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export const registerRecipeApi: RegisterCommand = (program) => {
  const api = new Command('recipe-api').description('the read-only recipe API (search, recipes, diets, meal plans, dry runs)');
  api
    .command('serve')
    .description('serve the 28 read-only operations of the recipe API over a folder of recipe documents')
    .requiredOption('--catalog <dir>', 'folder of recipe documents (searched recursively for *.json)')
    .option('--port <port>', 'TCP port (0 picks a free one)', '8090')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--certifications <dir>', 'folder of Certification documents listed on /api/certifications')
    .option('--rate-limit <perSecond>', 'turn on the per-IP limiter at this many requests per second (off by default)')
    .option('--burst <requests>', 'burst size of the per-IP limiter', '30')
    .option('--mcp-token <token>', 'a bearer token that opens /mcp (repeatable)', collect)
    .option('--mcp-tokens-file <file>', 'file of bearer tokens that open /mcp, one per line')
    .option(
      '--hub-data <dir>',
      "a hub's data directory (or its hearth.db): tokens that hub issued, by pairing or `hearth token create`, open /mcp",
    )
    .option(
      '--index-cache <file>',
      'keep the checked catalog in this file (default: one file per catalog in $CACHE_DIRECTORY, else $XDG_CACHE_HOME/hearth, else ~/.cache/hearth): a later start over the same unchanged files skips reading, checking and hashing them',
    )
    .option('--no-index-cache', 'neither use nor write an index cache')
    .action(async (opts) => {
      const { runRecipeApi } = await import('../../../services/recipe-api/cli.js');
      await runRecipeApi(opts);
    });
  program.addCommand(api);
};
