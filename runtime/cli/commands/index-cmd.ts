/** `hearth index build|serve`: the static recipe index (build it from a folder, serve it over HTTP). */
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export const registerIndex: RegisterCommand = (program) => {
  const index = new Command('index').description('build and serve the static recipe index (svc semantics §10)');
  index
    .command('build')
    .description('write (or update) the static index from a folder of recipes; only changed files are rewritten')
    .requiredOption('--recipes <dir>', 'folder of recipe documents (*.svc.json)')
    .requiredOption('--out <dir>', 'output folder (holds the build state between runs)')
    .requiredOption('--key <keyfile>', 'Ed25519 key file that signs the manifest')
    .option('--recalls <dir>', 'folder of signed Recall documents to publish')
    .option('--trust <file>', 'key record(s) whose Recall signatures are accepted (repeatable)', collect)
    .option('--name <name>', 'name of the index in its discovery document')
    .option('--base-url <url>', 'public base URL written into discovery and the agent card')
    .option('--json', 'print the build result as JSON')
    .action(async (opts) => {
      const { runBuild } = await import('../../../services/index/cli.js');
      await runBuild(opts);
    });
  index
    .command('serve')
    .description('serve a built index: static files, /v1/search, /v1/match and /v1/mcp')
    .requiredOption('--dir <dir>', 'folder written by `hearth index build`')
    .option('--port <port>', 'TCP port (0 picks a free one)', '8080')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--rate <perSecond>', 'requests per second per client IP on dynamic endpoints', '10')
    .option('--burst <requests>', 'burst size of the per-IP limit', '30')
    .option('--base-url <url>', 'public base URL used in problem types (default: from the request)')
    .action(async (opts) => {
      const { runServe } = await import('../../../services/index/serve/serve-cli.js');
      await runServe(opts);
    });
  program.addCommand(index);
};
