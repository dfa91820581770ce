/**
 * `hearth registry …`: run a registry and directory server (serve, export, token create) and talk to one as a
 * publisher (prove, publish, status). Implementations load lazily inside each action.
 */
import { Command } from 'commander';
import type { RegisterCommand } from './types.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

const DEFAULT_DATA_DIR = 'var/registry';
const DEFAULT_REGISTRY = 'http://127.0.0.1:8470';

function clientOpts(cmd: Command): Command {
  return cmd
    .option('--registry <url>', 'base URL of the registry (env SVC_REGISTRY_URL)', process.env.SVC_REGISTRY_URL ?? DEFAULT_REGISTRY)
    .option('--token <token>', 'publish token (env SVC_REGISTRY_TOKEN)')
    .option('--json', 'print the answer as JSON');
}

export const registerRegistry: RegisterCommand = (program) => {
  const registry = new Command('registry').description('the registry and directory service: serve one, or publish to one');

  registry
    .command('serve')
    .description('serve the registry and directory API on SQLite or PostgreSQL (prints an admin token on first start)')
    .option('--port <port>', 'TCP port (0 picks a free one)', '8470')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--data-dir <dir>', 'where the signing key (and the SQLite database) live', DEFAULT_DATA_DIR)
    .option('--db <url>', 'the store: a postgres:// URL, or a SQLite file (default: registry.db in the data directory)')
    .option('--base-url <url>', 'public base URL (default: the listening address)')
    .option('--recipe-base <url>', 'URL prefix recipe collections may be fetched from for checking (repeatable)', collect)
    .option('--dns-server <addr>', 'DNS server for TXT proofs, e.g. 127.0.0.1:5353 (repeatable; default: system)', collect)
    .option('--well-known-template <url>', 'where to read the well-known proof', 'https://{domain}/.well-known/svc-verify')
    .option('--oidc-jwks-url <url>', 'JWKS of the code-host OIDC issuer (enables the oidc method)')
    .option('--oidc-issuer <iss>', 'expected OIDC issuer', 'https://token.actions.githubusercontent.com')
    .option('--oidc-audience <aud>', 'expected OIDC audience', 'svc-registry')
    .option('--proofs-per-minute <n>', 'namespace challenge and verify requests per minute per client address', '30')
    .option('--log', 'log requests to stderr')
    .action(async (opts) => {
      const { serve } = await import('../../../services/registry/cli/admin.js');
      await serve(opts);
    });

  registry
    .command('migrate')
    .description('apply pending schema migrations to the store (serve also does this at start)')
    .option('--data-dir <dir>', 'data directory of the registry', DEFAULT_DATA_DIR)
    .option('--db <url>', 'the store: a postgres:// URL, or a SQLite file (default: registry.db in the data directory)')
    .option('--json', 'print the migrations applied as JSON')
    .action(async (opts) => {
      const { migrate } = await import('../../../services/registry/cli/admin.js');
      await migrate(opts);
    });

  registry
    .command('export')
    .description('write v1/registry.json, v1/directory.json and v1/recalls.json for static hosting')
    .requiredOption('--out <dir>', 'output folder')
    .option('--data-dir <dir>', 'data directory of the registry', DEFAULT_DATA_DIR)
    .option('--db <url>', 'the store: a postgres:// URL, or a SQLite file (default: registry.db in the data directory)')
    .option('--base-url <url>', 'public base URL written into the documents', DEFAULT_REGISTRY)
    .option('--json', 'print the files written as JSON')
    .action(async (opts) => {
      const { exportStatic } = await import('../../../services/registry/cli/admin.js');
      await exportStatic(opts);
    });

  const token = new Command('token').description('operator tokens');
  token
    .command('create')
    .description('create a publish token bound to namespaces (or an admin token), printed once')
    .option('--namespaces <list>', 'comma-separated namespaces, e.g. org.example,io.github.alice')
    .option('--admin', 'an operator token that may publish and change any namespace')
    .option('--data-dir <dir>', 'data directory of the registry', DEFAULT_DATA_DIR)
    .option('--db <url>', 'the store: a postgres:// URL, or a SQLite file (default: registry.db in the data directory)')
    .option('--json', 'print the token record as JSON')
    .action(async (opts) => {
      const { createToken } = await import('../../../services/registry/cli/admin.js');
      await createToken(opts);
    });
  token
    .command('revoke')
    .description('revoke a token by its id (shown by token create --json)')
    .argument('<id>', 'token id')
    .option('--data-dir <dir>', 'data directory of the registry', DEFAULT_DATA_DIR)
    .option('--db <url>', 'the store: a postgres:// URL, or a SQLite file (default: registry.db in the data directory)')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, opts) => {
      const { revokeToken } = await import('../../../services/registry/cli/admin.js');
      await revokeToken(id, opts);
    });
  registry.addCommand(token);

  clientOpts(
    registry
      .command('prove')
      .description('prove a namespace: get a challenge, publish it, then --check for a publish token')
      .argument('<domain>', 'the domain behind the namespace (example.org → org.example; alice.github.io → io.github.alice)')
      .option('--method <method>', 'dns, well-known or oidc', 'dns')
      .option('--check', 'verify the challenge and print a publish token')
      .option('--id-token <jwt>', 'OIDC token for the oidc method (env SVC_OIDC_TOKEN)'),
  ).action(async (domain: string, opts) => {
    const { prove } = await import('../../../services/registry/cli/client.js');
    await prove(domain, opts);
  });

  clientOpts(registry.command('publish').description('publish a registry entry (JSON file)').argument('<file>', 'the entry')).action(
    async (file: string, opts) => {
      const { publish } = await import('../../../services/registry/cli/client.js');
      await publish(file, opts);
    },
  );

  clientOpts(
    registry
      .command('status')
      .description('change the status of one version, or of all versions, of an entry')
      .argument('<name>', '<namespace>/<name> for all versions, or <namespace>/<name>@<version> for one')
      .requiredOption('--status <status>', 'active, deprecated, recalled or deleted')
      .option('--message <text>', 'why (at most 500 characters)'),
  ).action(async (name: string, opts) => {
    const { setStatus } = await import('../../../services/registry/cli/client.js');
    await setStatus(name, opts);
  });

  program.addCommand(registry);
};
