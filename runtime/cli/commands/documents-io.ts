/** Reading and writing the documents the document commands work on, with one-line errors for bad input. */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseJson } from '../../../core/canonical.js';
import type { ValidationIssue } from '../../../schemas/index.js';
import { CliError } from '../errors.js';

/** Read and strictly parse a JSON file; a missing file or bad JSON is a CliError (exit 2). */
export function readJsonFile(file: string, what = 'file'): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (err as Error).message;
    throw new CliError(`cannot read ${what} ${file}: ${why}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return parseJson(text);
  } catch (err) {
    throw new CliError(`${what} ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/** Read a JSON file that must hold an object. */
export function readJsonObject(file: string, what = 'file'): Record<string, unknown> {
  const doc = readJsonFile(file, what);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new CliError(`${what} ${file} must hold a JSON object`);
  return doc as Record<string, unknown>;
}

/** One line summarising schema issues: the first issue and how many more. */
export function issueLine(file: string, what: string, issues: readonly ValidationIssue[]): string {
  const first = issues[0];
  const where = first ? `${first.path || '/'}: ${first.message}` : 'invalid';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more; run hearth validate ${file})` : '';
  return `${file} is not a valid ${what}: ${where}${more}`;
}

/** Write text to a file (with a trailing newline), or to stdout when no file is given. */
export function output(text: string, file?: string, mode?: number): void {
  const body = text.endsWith('\n') ? text : `${text}\n`;
  if (file === undefined) {
    process.stdout.write(body);
    return;
  }
  try {
    writeFileSync(file, body, mode === undefined ? undefined : { mode });
  } catch (err) {
    throw new CliError(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
