/** The implementation behind `hearth recipe-api serve`, loaded lazily by the command module. */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { CliError } from '../../platform/cli-error.js';
import { whenQuiet } from '../../platform/when-quiet.js';
import {
  collectGarbageNow,
  commandLineFlags,
  compactGarbageNow,
  flushIdleCode,
  keepYoungGenerationSmall,
  releaseFreedPages,
} from '../../platform/young-generation.js';
import { defaultCacheFile } from './cache-location.js';
import { CatalogError } from './catalog.js';
import { HubTokensError } from './hub-tokens.js';
import { createRecipeApi, type RecipeApi } from './server.js';

export interface RecipeApiCommandOptions {
  catalog: string;
  port: string;
  host: string;
  certifications?: string;
  rateLimit?: string;
  burst: string;
  mcpToken?: string[];
  mcpTokensFile?: string;
  hubData?: string;
  /** A file; false with --no-index-cache; undefined: the default place (cache-location.ts). */
  indexCache?: string | false;
}

/** The index cache file to use, if any; a default place that cannot be made is a warning, never a failed start. */
function indexCacheOf(opts: RecipeApiCommandOptions): string | undefined {
  if (opts.indexCache === false) return undefined;
  if (typeof opts.indexCache === 'string') return opts.indexCache;
  const where = defaultCacheFile(opts.catalog);
  if ('file' in where) return where.file;
  process.stderr.write(`hearth: warning: no index cache: ${where.error}; every start reads the whole catalog\n`);
  return undefined;
}

/**
 * V8's top tier (TurboFan) off while the catalog loads, where V8 also has Maglev, its cheaper optimizing tier (V8 12
 * and later, Node 22 and later, on x64 and arm64; Node 20's V8 11 runs no Maglev by default, and this would leave
 * the load unoptimized): the load's code runs once per document, and TurboFan spent ~450 ms of CPU on background
 * threads compiling it, beside the load on a 2-core machine. Measured on Node 24 (docs/recipe-api.md): ~70 ms less
 * CPU to the first answer, the same first answer on a quiet machine, search p99 as before. TurboFan is on again
 * once the catalog is loaded (a load worker's start also turns it back on: V8 puts the command line's flags back).
 * `HEARTH_LOAD_TURBOFAN=on` keeps it on throughout.
 */
export function maglevOnlyDuringLoad(
  env: NodeJS.ProcessEnv = process.env,
  v8 = process.versions.v8,
  arch: string = process.arch,
  execArgv: readonly string[] = process.execArgv,
): boolean {
  // Maglev or the optimizing tiers turned off or limited on the command line: leave the tiers as they were asked.
  // Any spelling (commandLineFlags writes `_` as `-`); `--opt` is an alias of `--turbofan`.
  const asked = /--(no-)?(always-)?(maglev|turbofan|opt)\b|--max-opt|--jitless|--lite-mode/.test(commandLineFlags(env, execArgv));
  return Number(v8.split('.')[0]) >= 12 && (arch === 'x64' || arch === 'arm64') && !asked && env.HEARTH_LOAD_TURBOFAN !== 'on';
}

function positive(value: string, what: string, ok: (n: number) => boolean, rule: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !ok(n)) throw new CliError(`${what} must be ${rule}`);
  return n;
}

function tokensOf(opts: RecipeApiCommandOptions): string[] {
  const tokens = [...(opts.mcpToken ?? [])];
  if (opts.mcpTokensFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(opts.mcpTokensFile, 'utf8');
    } catch (err) {
      throw new CliError(
        `cannot read --mcp-tokens-file ${opts.mcpTokensFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    tokens.push(
      ...text
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('#')),
    );
  }
  for (const t of tokens)
    if (t.length < 16 || /\s/.test(t)) throw new CliError('an MCP token must be at least 16 characters without spaces');
  return tokens;
}

export async function runRecipeApi(opts: RecipeApiCommandOptions): Promise<void> {
  const port = positive(opts.port, '--port', (n) => Number.isInteger(n) && n >= 0 && n <= 65535, 'an integer from 0 to 65535');
  const burst = positive(opts.burst, '--burst', (n) => n >= 1, 'a number of at least 1');
  const rate = opts.rateLimit !== undefined ? positive(opts.rateLimit, '--rate-limit', (n) => n > 0, 'a positive number') : undefined;
  const mcpTokens = tokensOf(opts);
  const indexCache = indexCacheOf(opts);
  // Before the catalog loads: the load keeps most of what it allocates, which would grow the young generation
  // to 32 MB for good (platform/young-generation.ts).
  keepYoungGenerationSmall();
  // The load's own code (parsing, hashing, rows) runs once: V8 may drop it afterwards.
  flushIdleCode();
  const started = performance.now();
  const maglevOnly = maglevOnlyDuringLoad();
  if (maglevOnly) setFlagsFromString('--no-turbofan');
  let api: RecipeApi;
  try {
    api = createRecipeApi({
      dir: opts.catalog,
      mcpTokens,
      ...(opts.hubData !== undefined ? { hubData: opts.hubData } : {}),
      ...(opts.certifications !== undefined ? { certificationsDir: opts.certifications } : {}),
      ...(indexCache !== undefined ? { indexCache, deferIndexCacheWrite: true } : {}),
      ...(rate !== undefined ? { rateLimit: { ratePerSecond: rate, burst } } : {}),
    });
  } catch (err) {
    if (err instanceof CatalogError) throw new CliError(`cannot serve the catalog: ${err.message}`);
    if (err instanceof HubTokensError) throw new CliError(`--hub-data: ${err.message}`);
    throw err;
  } finally {
    if (maglevOnly) setFlagsFromString('--turbofan');
  }
  // What the load parsed and dropped (each document, once its row is built) is given back before serving. After a
  // full load that garbage is spread over the old generation's pages: this one collection also compacts them
  // (2,000 recipes: old generation 28 -> 19 MB, resident 5-9 MB less); a load from the index cache leaves little.
  // (Deferring it until the server is quiet saved ~50 ms of a cold start but left ~94 MB resident until then.)
  if (api.catalog.indexCache !== 'used') compactGarbageNow();
  else collectGarbageNow();
  const loadMs = Math.round(performance.now() - started);
  // The index cache is written once the server is quiet (platform/when-quiet.ts), not before the first answers
  // (2,000 rows: ~50 ms); a stop before then, or a failed listen, writes it before exiting.
  const writeCache = () => {
    if (!api.catalog.writeIndexCache) return;
    try {
      api.catalog.writeIndexCache();
    } catch (err) {
      process.stderr.write(`hearth: warning: the index cache ${indexCache} could not be written (${(err as Error).message})\n`);
      return;
    }
    if (api.catalog.indexCache === 'failed')
      process.stderr.write(
        `hearth: warning: the index cache ${indexCache} could not be written (${api.catalog.indexCacheError}); the next start reads the whole catalog again\n`,
      );
    else process.stdout.write(`recipe API index cache written to ${indexCache}\n`);
  };
  if (api.catalog.indexCache === 'failed')
    process.stderr.write(`hearth: warning: no index cache: ${api.catalog.indexCacheError}; every start reads the whole catalog\n`);
  let address: string;
  try {
    address = await api.app.listen({ port, host: opts.host });
  } catch (err) {
    // A service restarted in a loop on a taken port must not load the whole catalog at every attempt.
    writeCache();
    throw new CliError(`cannot listen on ${opts.host}:${port}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  // Once quiet: the pending cache written, then its buffer given back (a plain collection); on V8 12 and later
  // also the pages the load's collections freed, which V8 keeps resident until asked (releaseFreedPages).
  const cachePending = api.catalog.writeIndexCache !== undefined;
  // A cache to write waits 5 s at most (the next start needs it); the pages alone wait for a quiet moment, however
  // long: a server that is never quiet pays no pause for them.
  const housekeeping = whenQuiet(
    api.app.server,
    () => {
      writeCache();
      if (!releaseFreedPages() && cachePending) collectGarbageNow();
    },
    { maxMs: cachePending ? 5000 : Number.POSITIVE_INFINITY },
  );
  const reused = api.catalog.indexCacheRows;
  const cache = api.catalog.indexCache;
  const threads = api.catalog.loadWorkers?.threads;
  const how =
    (cache === 'used' ? ', from the index cache' : reused ? `, ${reused} of them from the index cache` : '') +
    (threads ? `, ${threads} worker thread${threads > 1 ? 's' : ''}` : '');
  process.stdout.write(
    `recipe API serving ${api.catalog.rows.length} recipes from ${opts.catalog} (loaded in ${loadMs} ms${how}) at ${address}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      // The index cache not written yet is written now (the next start needs it).
      housekeeping.cancel();
      try {
        writeCache();
      } finally {
        api.app.close().then(resolve, resolve);
      }
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
