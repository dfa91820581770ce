/** Finding and reading vector files: every `*.json` under a directory (recursively) that holds an array of vectors. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseJson } from '../core/canonical.js';
import type { Vector } from './types.js';

export interface VectorFile {
  /** Path relative to the vectors directory, with `/` separators. */
  file: string;
  vectors: Vector[];
}

export interface LoadProblem {
  file: string;
  message: string;
}

/** The public vectors beside the repository (`../shared/reference/conformance`), when that directory exists. */
export function defaultVectorsDir(): string | undefined {
  const candidates = [
    new URL('../../shared/reference/conformance/', import.meta.url),
    new URL('../../../shared/reference/conformance/', import.meta.url),
  ];
  for (const c of candidates) {
    const p = fileURLToPath(c);
    if (existsSync(p)) return p.replace(/\/$/, '');
  }
  return undefined;
}

function jsonFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...jsonFiles(p));
    else if (st.isFile() && name.endsWith('.json')) out.push(p);
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when `v` looks like a vector: an object with string `id` and `kind` and both `input` and `expected`. */
export function isVector(v: unknown): v is Vector {
  return isObject(v) && typeof v.id === 'string' && typeof v.kind === 'string' && 'input' in v && 'expected' in v;
}

/**
 * Read every vector file under `dir`. Files that are not arrays of vectors (key files, notes) are skipped;
 * an array in which some entries are vectors and some are not, or a file that is not strict JSON, is a problem.
 */
export function loadVectorFiles(dir: string): { files: VectorFile[]; problems: LoadProblem[] } {
  const files: VectorFile[] = [];
  const problems: LoadProblem[] = [];
  for (const path of jsonFiles(dir)) {
    const file = relative(dir, path).split('\\').join('/');
    let doc: unknown;
    try {
      doc = parseJson(readFileSync(path, 'utf8'));
    } catch (err) {
      problems.push({ file, message: (err as Error).message });
      continue;
    }
    if (!Array.isArray(doc) || !doc.some(isVector)) continue;
    const bad = doc.findIndex((v) => !isVector(v));
    if (bad >= 0) {
      problems.push({ file, message: `entry ${bad} is not a vector {id, kind, input, expected}` });
      continue;
    }
    files.push({ file, vectors: doc as Vector[] });
  }
  return { files, problems };
}
