/** The implementation behind `hearth index serve`, loaded lazily by the command module. */
import { CliError } from '../../../platform/cli-error.js';
import { mcpAllowedHosts } from './mcp.js';
import { createIndexServer } from './server.js';
import { CatalogLoadError } from './store.js';

export interface ServeCommandOptions {
  dir: string;
  port: string;
  host: string;
  rate: string;
  burst: string;
  baseUrl?: string;
}

function number(value: string, what: string, ok: (n: number) => boolean, rule: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !ok(n)) throw new CliError(`${what} must be ${rule}`);
  return n;
}

export async function runServe(raw: ServeCommandOptions): Promise<void> {
  const opts = {
    ...raw,
    port: number(raw.port, '--port', (n) => Number.isInteger(n) && n >= 0 && n <= 65535, 'an integer from 0 to 65535'),
    rate: number(raw.rate, '--rate', (n) => n > 0, 'a positive number'),
    burst: number(raw.burst, '--burst', (n) => n >= 1, 'a number of at least 1'),
  };
  let server: ReturnType<typeof createIndexServer>;
  try {
    server = createIndexServer({
      dir: opts.dir,
      ratePerSecond: opts.rate,
      burst: opts.burst,
      ...(mcpAllowedHosts(opts.host) ? { mcpAllowedHosts: mcpAllowedHosts(opts.host) } : {}),
      ...(opts.baseUrl !== undefined ? { baseUrl: opts.baseUrl } : {}),
    });
  } catch (err) {
    if (err instanceof CatalogLoadError) throw new CliError(`cannot serve ${opts.dir}: ${err.message}`);
    throw err;
  }
  const { app, store } = server;
  let address: string;
  try {
    address = await app.listen({ port: opts.port, host: opts.host });
  } catch (err) {
    throw new CliError(`cannot listen on ${opts.host}:${opts.port}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const cat = store.get();
  process.stdout.write(`index serving ${opts.dir} (catalog version ${cat.version}, ${cat.facts.length} recipes) at ${address}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      app.close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
