/**
 * Document tools: `hearth hash`, `keygen`, `sign`, `verify`, `validate`, `dry-run`, `check-temperature`.
 * Options are registered here; the implementations load only when one of these commands runs.
 */
import type { Command } from 'commander';
import type { RegisterCommand } from './types.js';

function done(code: number): void {
  process.exitCode = code;
}

export const registerDocuments: RegisterCommand = (program: Command) => {
  program
    .command('hash')
    .description('print the document hash (sha256 of the canonical JSON without hash and signature)')
    .argument('<file>', 'JSON document')
    .option('--check', 'compare with the declared hash; exit 1 on a mismatch')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, opts: { check?: boolean; json?: boolean }) => {
      const { hashCommand } = await import('./documents-crypto.js');
      done(hashCommand(file, opts));
    });

  program
    .command('keygen')
    .description('make an Ed25519 key file; prints the public key record')
    .option('--kid <kid>', 'key id (default: a random hearth-… id)')
    .option('--actor <actor>', 'actor the key belongs to (default: local)')
    .option('--valid-from <time>', 'RFC 3339 start of validity (default: now)')
    .option('--out <file>', 'write the key file here (mode 600); without it the key file goes to stdout')
    .option('--force', 'overwrite an existing --out file')
    .action(async (opts: { kid?: string; actor?: string; validFrom?: string; out?: string; force?: boolean }) => {
      const { keygenCommand } = await import('./documents-crypto.js');
      done(keygenCommand(opts));
    });

  program
    .command('sign')
    .description('sign a document: sets its hash and signature')
    .argument('<file>', 'JSON document')
    .requiredOption('--key <keyfile>', 'key file written by hearth keygen')
    .option('--kind <kind>', 'document kind to sign (default: the document\'s "kind")')
    .option('--signed-at <time>', 'RFC 3339 signing time (default: now)')
    .option('--out <file>', 'write the signed document here instead of stdout')
    .action(async (file: string, opts: { key: string; kind?: string; signedAt?: string; out?: string }) => {
      const { signCommand } = await import('./documents-crypto.js');
      done(signCommand(file, opts));
    });

  program
    .command('verify')
    .description('verify a signed document; prints ok or the reason, exit 1 when not ok')
    .argument('<file>', 'signed JSON document')
    .requiredOption('--keys <file>', 'key records: an array or {"keys": [...]}')
    .option('--kind <kind>', 'document kind the signature must cover (default: the document\'s "kind")')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, opts: { keys: string; kind?: string; json?: boolean }) => {
      const { verifyCommand } = await import('./documents-crypto.js');
      done(verifyCommand(file, opts));
    });

  program
    .command('validate')
    .description('check a document against its schema (and a recipe against its operation envelopes); exit 1 when invalid')
    .argument('<file>', 'JSON document')
    .option('--as <type>', 'document type (default: told from the document): recipe, capabilities, safety-limits, execute-request, …')
    .option('--json', 'print the ValidationResult as JSON')
    .action(async (file: string, opts: { as?: string; json?: boolean }) => {
      const { validateCommand } = await import('./documents-check.js');
      done(validateCommand(file, opts));
    });

  program
    .command('dry-run')
    .description('plan a recipe on a device: who does each step and how it is verified, or why it is refused (exit 1)')
    .argument('<recipe>', 'recipe file')
    .requiredOption('--device <file>', 'device capabilities document')
    .option('--human-present', 'a responsible person is present')
    .option('--no-model', 'do not accept model estimates as verification')
    .option('--limits <file>', "the device's SafetyLimits (applied on top of the default pack; the strictest wins)")
    .option('--now <time>', 'RFC 3339 time to judge sensor calibrations at (default: now)')
    .option('--json', 'print the DryRunResult as JSON')
    .action(
      async (
        recipe: string,
        opts: { device: string; humanPresent?: boolean; model?: boolean; limits?: string; now?: string; json?: boolean },
      ) => {
        const { dryRunCommand } = await import('./documents-check.js');
        done(dryRunCommand(recipe, opts));
      },
    );

  program
    .command('check-temperature')
    .description("check a temperature trace against an operation's envelope; exit 1 when it left the band or missed the target")
    .requiredOption('--op <id>', 'operation id, e.g. cw.op.simmer')
    .requiredOption('--trace <file>', 'readings: [{"t": 0, "tempC": 20}, …] or {"readings": [...]}')
    .option('--target <value>', 'target temperature in °C')
    .option('--tolerance <value>', 'allowed distance from the target in °C')
    .option('--altitude <metres>', 'altitude in metres (water and steam boil lower)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { op: string; trace: string; target?: string; tolerance?: string; altitude?: string; json?: boolean }) => {
      const { checkTemperatureCommand } = await import('./documents-check.js');
      done(checkTemperatureCommand(opts));
    });
};
