/** The implementation behind `hearth index serve`, loaded lazily by the command module. */
import { CliError } from '../../runtime/cli/errors.js';
import { createIndexServer } from './server.js';
import { CatalogLoadError } from './store.js';

export interface ServeCommandOptions {
  dir: string;
  port: number;
  host: string;
  rate: number;
  burst: number;
  baseUrl?: string;
}

export async function runServe(opts: ServeCommandOptions): Promise<void> {
  let server: ReturnType<typeof createIndexServer>;
  try {
    server = createIndexServer({
      dir: opts.dir,
      ratePerSecond: opts.rate,
      burst: opts.burst,
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
