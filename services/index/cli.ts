/**
 * The implementations behind `hearth index build` and `hearth index serve`, loaded lazily by the command
 * module. Bad input becomes a `CliError` (one line on stderr, exit 2).
 */
import { readFileSync } from 'node:fs';
import { parseJson } from '../../core/canonical.js';
import { type KeyFile, type KeyRecord, parseKeyFile } from '../../core/keys.js';
import { CliError } from '../../platform/cli-error.js';
import { buildIndex } from './build/build.js';
import { consoleProgress } from './build/progress.js';
import { BuildInputError, readTrustFile } from './build/sources.js';

export interface BuildCommandOptions {
  recipes: string;
  out: string;
  key: string;
  recalls?: string;
  trust?: string[];
  name?: string;
  baseUrl?: string;
  json?: boolean;
}

export function readKeyFile(file: string): KeyFile {
  let json: unknown;
  try {
    json = parseJson(readFileSync(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(`cannot read key file ${file}: ${code ?? (err as Error).message}`);
  }
  try {
    return parseKeyFile(json);
  } catch (err) {
    throw new CliError(`${file}: ${(err as Error).message}`);
  }
}

function checkBaseUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new CliError(`--base-url ${JSON.stringify(url)} is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new CliError('--base-url must be an http or https URL');
  return url.replace(/\/+$/, '');
}

export async function runBuild(opts: BuildCommandOptions): Promise<void> {
  const key = readKeyFile(opts.key);
  const baseUrl = checkBaseUrl(opts.baseUrl);
  let trust: KeyRecord[] = [];
  const progress = consoleProgress(opts.json ? { isTTY: false, write: () => true } : process.stdout);
  try {
    trust = (opts.trust ?? []).flatMap((f) => readTrustFile(f));
    const result = buildIndex({
      recipesDir: opts.recipes,
      outDir: opts.out,
      key,
      ...(opts.recalls !== undefined ? { recallsDir: opts.recalls } : {}),
      trust,
      ...(opts.name !== undefined ? { name: opts.name } : {}),
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      onProgress: progress.onProgress,
    });
    progress.done();
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return;
    }
    const what = result.changed ? `catalog version ${result.version}` : `unchanged, catalog version ${result.version}`;
    process.stdout.write(
      `${what}: ${result.recipes} recipes (${result.upserted} new or changed, ${result.removed} removed), ${result.recalls} recalls, ${result.documents} market, relief and report documents; ` +
        `wrote ${result.written} files, kept ${result.kept}, deleted ${result.deleted}\n`,
    );
  } catch (err) {
    progress.done();
    if (err instanceof BuildInputError) throw new CliError(err.message);
    if (err instanceof Error && !(err instanceof TypeError) && !(err instanceof RangeError)) throw new CliError(err.message);
    throw err;
  }
}
