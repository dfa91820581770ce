/** `hearth pair`: approve, reject and list pairing requests of agents and people (RFC 8628 style). */
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

type Opts = { dataDir?: string; hub?: string; token?: string; scopes?: string; kind?: string; json?: boolean };

function common(c: Command): Command {
  return c
    .option('--data-dir <dir>', 'the hub store (default ./var)')
    .option('--hub <url>', 'use a running hub instead of the data directory')
    .option('--token <token>', "with --hub: a person's token with the admin scope")
    .option('--json', 'print JSON');
}

export const registerPair: RegisterCommand = (program) => {
  const pair = new Command('pair').description('pair agents and people with this hub (approve, reject, list)');
  common(
    pair
      .command('approve')
      .description('approve a pairing code; the agent then receives its token when it polls')
      .argument('<code>', 'the code the agent shows, e.g. BCDF-GHJK')
      .option('--scopes <list>', 'grant these scopes instead of the ones asked for (comma-separated)')
      .option('--kind <kind>', 'human or agent (default: what was asked for)'),
  ).action(async (code: string, o: Opts) => {
    const { decide } = await import('../../pairing/cli.js');
    await decide('approve', code, o);
  });
  common(pair.command('reject').description('reject a pairing code').argument('<code>', 'the code the agent shows')).action(
    async (code: string, o: Opts) => {
      const { decide } = await import('../../pairing/cli.js');
      await decide('reject', code, o);
    },
  );
  common(pair.command('list').description('list pairing requests (pending, approved, rejected, expired)')).action(async (o: Opts) => {
    const { listRequests } = await import('../../pairing/cli.js');
    await listRequests(o);
  });
  program.addCommand(pair);
};
