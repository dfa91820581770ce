/** `hearth mandate`: signed agent mandates (sign one) and the principal keys they verify against (trust, keys). */
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

export const registerMandate: RegisterCommand = (program) => {
  const mandate = new Command('mandate').description('agent mandates: sign one for an agent, register principal keys');
  mandate
    .command('sign')
    .description('sign a mandate with your key file (hearth keygen --actor YOU): what an agent may do for you; prints it')
    .requiredOption('--key <keyfile>', 'your key file; its actor is the principal')
    .requiredOption('--agent <id>', "the agent's token id (tok_…) or name")
    .requiredOption('--scopes <list>', 'comma-separated: start_cooking, order_groceries, plan_meals, …')
    .requiredOption('--expires <time>', 'RFC 3339 time, or a duration from now: 12h, 7d')
    .option('--confirm-before <list>', 'actions you confirm yourself: any_payment, payment_over_cap, new_provider, …')
    .option('--allowed-providers <list>', 'comma-separated providers the agent may order from')
    .option('--per-order-cap <money>', 'largest single order, e.g. 50EUR')
    .option('--spend-cap <money>', 'largest total spend, e.g. 200EUR')
    .option('--acknowledge-allergens <list>', 'allergens you accept in what the agent starts cooking, e.g. eggs,milk')
    .option('--signed-at <time>', 'RFC 3339 signing time (default: now)')
    .option('--out <file>', 'write the mandate here instead of stdout')
    .action(async (o: import('../../auth/mandate-cli.js').SignMandateOptions) => {
      const { signMandate } = await import('../../auth/mandate-cli.js');
      signMandate(o);
    });
  mandate
    .command('trust')
    .description("register a principal's public key record on this device (mandates must be signed with such a key)")
    .argument('<file>', 'public key record (what hearth keygen prints)')
    .option('--data-dir <dir>', 'the store (default ./var)')
    .option('--json', 'print JSON')
    .action(async (file: string, o: { dataDir?: string; json?: boolean }) => {
      const { trustKey } = await import('../../auth/mandate-cli.js');
      trustKey({ ...o, file });
    });
  mandate
    .command('keys')
    .description('list the principal keys this device trusts')
    .option('--data-dir <dir>', 'the store (default ./var)')
    .option('--json', 'print JSON')
    .action(async (o: { dataDir?: string; json?: boolean }) => {
      const { listKeys } = await import('../../auth/mandate-cli.js');
      listKeys(o);
    });
  program.addCommand(mandate);
};
