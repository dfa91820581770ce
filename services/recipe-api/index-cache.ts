/**
 * The recipe API's index cache (`hearth recipe-api serve --index-cache FILE`): the rows a full load derived
 * from a catalog, kept in one file so that the next start over the same, unchanged files neither reads, parses,
 * validates nor hashes 2,000 documents again (that is most of a start; docs/recipe-api.md has the figures).
 *
 * Trust: the cache is used only when every catalog file has the same path, size, inode, modification and
 * status-change time as when the cache was written (the status-change time moves on every write and cannot be
 * set back by a user, so a file edited in place, even with its modification time restored, invalidates it), and
 * only by the same hearth build (the contents of the compiled files that derive rows) and V8. A
 * recipe's document is still read back from its file and checked against the hash verified when its row was
 * built whenever a view needs it (catalog.ts). Anything else (missing, unreadable, damaged, another catalog or
 * build) means a full load, after which the cache is written again (to a temporary file, then renamed).
 *
 * When only some files changed (a sync added or replaced a few recipes), the rest need not be loaded again: the
 * cache keeps each row's file stamp, and a row is taken from it when its file has exactly the stamp it had, the
 * cache was written by the same build and V8 for the same folder, and only then (catalog.ts). The changed files
 * are loaded in full, the search index is built again over all rows, and the cache is written again.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, renameSync, rmSync, type Stats, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { packageRoot } from '../../platform/paths.js';
import { schemasHash } from '../../schemas/index.js';
import type { PackedSearch } from '../index/search/search.js';
import type { Row } from './rows.js';

/** Bumped whenever what is stored changes shape. */
const FORMAT = 2;

/**
 * The modules whose code decides what a row or the search index holds, or which document a load accepts (reading,
 * the strict parse, the hash; the schemas are stamped by their own hash): compiled .js beside this one, or the .ts
 * sources. Their contents are hashed, not their sizes and times: an installed package's files all carry npm's one
 * fixed modification time, so two releases could otherwise look alike. A build adds its own stamp (dist/.built).
 */
export const DERIVING = [
  './index-cache',
  './catalog',
  './recipe-check',
  './rows',
  './strings',
  './select/screens',
  './select/screen-words',
  '../../safety/duration',
  '../index/entry',
  '../index/search/text',
  '../index/search/search',
  '../../core/hash',
  '../../core/canonical',
  '../../core/json-bytes',
  '../../core/json-errors',
  '../../core/json-parse',
  '../../core/json-parse-fast',
  '../../schemas/index',
];

/** Each module's source (by its URL beside this one) or undefined when it is missing. */
function moduleSource(m: string): Buffer | undefined {
  for (const ext of ['.js', '.ts']) {
    try {
      return readFileSync(fileURLToPath(new URL(`${m}${ext}`, import.meta.url)));
    } catch {
      // try the other extension
    }
  }
  return undefined;
}

/** The modules of DERIVING that cannot be found here (none, in a build, a release or the sources). */
export function missingDeriving(): string[] {
  const code = codeKey('');
  return 'missing' in code ? code.missing : [];
}

/**
 * What a cache's rows depend on besides the files: V8 and ICU (the text folding uses Unicode properties), the
 * contents of the modules (`sources`, DERIVING's by default), the schemas, and the build's stamp when there is
 * one. A module that cannot be found makes a stamp of its own, so that no cache is reused while the stamp cannot
 * see the code (codeKey does not even read or write a cache then).
 */
export function codeStamp(sources: readonly (Buffer | undefined)[] = DERIVING.map(moduleSource)): string {
  const v = process.versions;
  const h = createHash('sha256').update(`${FORMAT}|${v.v8}|${v.unicode ?? ''}|${v.icu ?? ''}|${schemasHash() ?? ''}`);
  let missing = false;
  for (const text of sources) {
    if (text === undefined) missing = true;
    else h.update(`|${text.length}:`).update(text);
  }
  try {
    h.update('|build:').update(readFileSync(join(packageRoot(), 'dist', '.built')));
  } catch {
    // sources run through a loader, no build
  }
  if (missing) h.update(`|a module is missing: ${randomUUID()}`);
  return h.digest('hex');
}

/** What identifies one catalog file's content without reading it. */
export function fileStamp(path: string, st: Stats): string {
  return `${path}\u0000${st.size}\u0000${st.ino}\u0000${st.mtimeMs}\u0000${st.ctimeMs}`;
}

/**
 * What a cache's rows may be reused for: the same code that derives rows, on the same V8, for the same folder.
 * When a module of DERIVING cannot be found the stamp cannot see the code: no key, and the modules missing.
 */
export function codeKey(dir: string): { key: string } | { missing: string[] } {
  const sources = DERIVING.map(moduleSource);
  const missing = DERIVING.filter((_, i) => sources[i] === undefined);
  if (missing.length > 0) return { missing };
  return { key: createHash('sha256').update(codeStamp(sources)).update('\u0000').update(dir).digest('hex') };
}

/** The key of a catalog: the code and folder (`codeKey`) and every file's stamp, in load order. */
export function catalogKey(code: string, stamps: readonly string[]): string {
  const h = createHash('sha256').update(code);
  for (const s of stamps) h.update('\u0001').update(s);
  return h.digest('hex');
}

/** A row as stored: everything but the reader of its document. */
export type StoredRow = Omit<Row, 'doc'>;

/** What the cache holds besides its key: the rows and the search index built over them. */
export interface CachedIndex {
  rows: StoredRow[];
  search: PackedSearch;
}

interface Stored extends CachedIndex {
  format: number;
  key: string;
  /** `codeKey` of the build and folder that wrote it. */
  code: string;
  /** Each row's file stamp (`fileStamp`), in row order. */
  stamps: string[];
}

/** What a cache holds for this catalog: all of it (`exact`: the same files), or rows to reuse by their file stamps. */
export interface CacheRead extends CachedIndex {
  exact: boolean;
  stamps: string[];
}

/**
 * The stored index when `file` holds a cache written by this build for this folder (`code`, see `codeKey`): exact
 * when its key is `key` (the same files), else only its rows are of use, each for a file of the same stamp.
 * Undefined otherwise (never throws).
 */
export function readIndexCache(file: string, key: string, code: string): CacheRead | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  try {
    const stored = deserialize(bytes) as Partial<Stored>;
    const { rows, stamps, search } = stored ?? {};
    if (stored?.format !== FORMAT || stored.code !== code || !Array.isArray(rows) || !search) return undefined;
    if (!Array.isArray(stamps) || stamps.length !== rows.length) return undefined;
    return { rows, search, stamps, exact: stored.key === key };
  } catch {
    // Damaged or foreign: a full load writes it again.
    return undefined;
  }
}

/**
 * Write the cache of `key` (best effort: a read-only place only costs the next start a full load). Returns
 * undefined when written, else why not (an errno code or a message).
 */
export function writeIndexCache(
  file: string,
  ids: { key: string; code: string; stamps: string[] },
  rows: readonly Row[],
  search: PackedSearch,
): string | undefined {
  const stored: Stored = {
    format: FORMAT,
    key: ids.key,
    code: ids.code,
    stamps: ids.stamps,
    search,
    rows: rows.map((r) => {
      const { doc: _doc, ...rest } = r;
      return rest;
    }),
  };
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, serialize(stored), { mode: 0o600 });
    renameSync(tmp, file);
    return undefined;
  } catch (err) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // nothing more to do: the cache is best effort
    }
    return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  }
}
