/**
 * Outputs that appear whole or not at all: a report folder or a file is written into a temporary sibling
 * (same directory, so the final rename stays on one file system) and renamed into place only once complete.
 * The sibling is made before any scenario runs, so an unwritable target is reported at once, not after a
 * twenty-minute run; a failure removes it, leaving nothing half-written.
 */
import { chmodSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CliError } from '../../platform/cli-error.js';

export interface Staged {
  /** The final path. */
  target: string;
  /** Where to write now: a folder (for a folder target) or the temporary file's path. */
  path: string;
  /** Move the staged output into place (replacing what was there). */
  commit(): void;
  /** Remove the staged output. */
  discard(): void;
}

function why(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM'
    ? 'permission denied'
    : code === 'ENOENT'
      ? 'its parent folder does not exist'
      : code === 'EROFS'
        ? 'read-only file system'
        : (code ?? (err as Error).message);
}

/** Stage a folder `dir` (`what` names it in the error line). */
export function stageDir(dir: string, what: string): Staged {
  const target = resolve(dir);
  let existing: ReturnType<typeof statSync> | undefined;
  try {
    existing = statSync(target);
  } catch {
    existing = undefined;
  }
  if (existing && !existing.isDirectory()) throw new CliError(`cannot write ${what} ${dir}: it exists and is not a folder`);
  let path: string;
  try {
    path = mkdtempSync(join(dirname(target), `.${basename(target)}.tmp-`));
    chmodSync(path, 0o755);
  } catch (err) {
    throw new CliError(`cannot write ${what} ${dir}: ${why(err)}`);
  }
  return {
    target,
    path,
    commit() {
      const old = existing ? `${path}.old` : undefined;
      if (old) renameSync(target, old);
      try {
        renameSync(path, target);
      } catch (err) {
        if (old) renameSync(old, target);
        throw new CliError(`cannot write ${what} ${dir}: ${why(err)}`);
      }
      if (old) rmSync(old, { recursive: true, force: true });
    },
    discard() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** Stage a file: its content goes to a temporary file beside it, written (empty) now to prove the folder writable. */
export function stageFile(file: string, what: string): Staged {
  const target = resolve(file);
  try {
    if (statSync(target).isDirectory()) throw new CliError(`cannot write ${what} ${file}: it is a folder`);
  } catch (err) {
    if (err instanceof CliError) throw err;
  }
  const path = join(dirname(target), `.${basename(target)}.tmp-${process.pid}`);
  try {
    writeFileSync(path, '', { flag: 'wx' });
  } catch (err) {
    throw new CliError(`cannot write ${what} ${file}: ${why(err)}`);
  }
  return {
    target,
    path,
    commit() {
      try {
        renameSync(path, target);
      } catch (err) {
        rmSync(path, { force: true });
        throw new CliError(`cannot write ${what} ${file}: ${why(err)}`);
      }
    },
    discard() {
      rmSync(path, { force: true });
    },
  };
}
