/** `hearth conformance`: run the vectors, print one line per vector and a summary, optionally write a signed report. */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseJson } from '../core/canonical.js';
import { type KeyFile, parseKeyFile } from '../core/keys.js';
import { signedReport } from './report.js';
import { defaultContext, formatResult, runDirectory } from './runner.js';
import { defaultVectorsDir } from './vectors.js';

export interface ConformanceOptions {
  vectors?: string;
  json?: boolean;
  report?: string;
  key?: string;
}

export interface ConformanceIo {
  out: (line: string) => void;
  /** Thrown for bad input (the CLI turns it into one line on stderr and exit code 2). */
  badInput: (message: string) => Error;
  now?: () => Date;
  toolVersion?: string;
}

/** This package's version, read from package.json beside the source or the build. */
export function packageVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'hearth' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // Try the next location.
    }
  }
  return '0.0.0';
}

function readKey(path: string, io: ConformanceIo): KeyFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw io.badInput(`cannot read key file ${path}`);
  }
  try {
    return parseKeyFile(parseJson(text));
  } catch (err) {
    throw io.badInput(`${path}: ${(err as Error).message}`);
  }
}

/** Run the command; returns the exit code (0 all passed, 1 any failure). Bad input throws `io.badInput(…)`. */
export function runConformance(opts: ConformanceOptions, io: ConformanceIo): number {
  if (opts.report !== undefined && opts.key === undefined) throw io.badInput('--report needs --key KEYFILE to sign the report');
  if (opts.key !== undefined && opts.report === undefined) throw io.badInput('--key is only used with --report FILE');
  const dir = opts.vectors !== undefined ? resolve(opts.vectors) : defaultVectorsDir();
  if (dir === undefined) throw io.badInput('no vectors directory found beside the repository; pass --vectors DIR');
  if (!existsSync(dir)) throw io.badInput(`vectors directory ${dir} does not exist`);
  if (!statSync(dir).isDirectory()) throw io.badInput(`${dir} is not a directory of vector files`);
  const key = opts.key !== undefined ? readKey(opts.key, io) : undefined;
  const now = io.now ?? (() => new Date());
  let outcome: ReturnType<typeof runDirectory>;
  try {
    outcome = runDirectory(dir, defaultContext(now));
  } catch (err) {
    throw io.badInput(`cannot run vectors: ${(err as Error).message}`);
  }
  if (outcome.results.length === 0 && outcome.problems.length === 0) throw io.badInput(`no vector files found in ${dir}`);
  if (opts.json) {
    io.out(
      JSON.stringify(
        {
          dir: outcome.dir,
          files: outcome.files,
          passed: outcome.passed,
          failed: outcome.failed,
          results: outcome.results,
          problems: outcome.problems,
        },
        null,
        2,
      ),
    );
  } else {
    for (const p of outcome.problems) io.out(`FAIL ${p.file}: ${p.message}`);
    for (const r of outcome.results) io.out(formatResult(r));
    io.out(`${outcome.passed} passed, ${outcome.failed} failed`);
  }
  if (opts.report !== undefined && key !== undefined) {
    const report = signedReport(outcome, key, { tool: { name: 'hearth', version: io.toolVersion ?? packageVersion() }, at: now() });
    try {
      writeFileSync(opts.report, `${JSON.stringify(report, null, 2)}\n`);
    } catch (err) {
      throw io.badInput(`cannot write report ${opts.report}: ${(err as Error).message}`);
    }
  }
  return outcome.failed > 0 ? 1 : 0;
}
