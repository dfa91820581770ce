/** `hearth token`: bearer tokens for the device's API (shown once, stored hashed). */
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

export const registerToken: RegisterCommand = (program) => {
  const token = new Command('token').description('bearer tokens for the API (create, list, revoke)');
  token
    .command('create')
    .description('create a token and print it once (it is stored hashed)')
    .requiredOption('--scopes <list>', 'comma-separated scopes, e.g. read,cook')
    .option('--name <name>', 'a name to recognise it by')
    .option('--kind <kind>', 'human or agent (default human)')
    .option('--mqtt-publish <filters>', 'comma-separated MQTT topic filters outside svc/ it may publish on, e.g. devices/plug-1/#')
    .option('--mqtt-subscribe <filters>', 'comma-separated MQTT topic filters outside svc/ it may subscribe to')
    .option('--data-dir <dir>', 'the store (default ./var)')
    .option('--json', 'print JSON')
    .action(async (o: import('../../auth/tokens-cli.js').CreateTokenOptions) => {
      const { createToken } = await import('../../auth/tokens-cli.js');
      createToken(o);
    });
  token
    .command('list')
    .description('list tokens (never their secrets)')
    .option('--data-dir <dir>', 'the store (default ./var)')
    .option('--json', 'print JSON')
    .action(async (o: { dataDir?: string; json?: boolean }) => {
      const { listTokens } = await import('../../auth/tokens-cli.js');
      listTokens(o);
    });
  token
    .command('revoke')
    .description('revoke a token by id or name')
    .argument('<id-or-name>', 'token id (tok_…) or name')
    .option('--data-dir <dir>', 'the store (default ./var)')
    .option('--json', 'print JSON')
    .action(async (idOrName: string, o: { dataDir?: string; json?: boolean }) => {
      const { revokeToken } = await import('../../auth/tokens-cli.js');
      revokeToken({ ...o, idOrName });
    });
  program.addCommand(token);
};
