/**
 * Reading and checking one catalog document: valid JSON (parsed strictly), an object, valid against the recipe
 * schema, with an id and, when it has a `hash`, a matching one. Used by the catalog load (catalog.ts) and by its
 * worker threads (load-worker.ts), so this module imports nothing of the catalog's indexes.
 */
import { readFileSync } from 'node:fs';
import { documentHash } from '../../core/hash.js';
import { parseJson } from '../../core/json-parse.js';
import { parseJsonFast, parseJsonIfPlain } from '../../core/json-parse-fast.js';
import { validate } from '../../schemas/index.js';
import type { Json } from './rows.js';

export class CatalogError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogError';
  }
}

function objectOf(file: string, doc: unknown): Json {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new CatalogError(`${file}: not a JSON object`);
  return doc as Json;
}

/**
 * Parse one file's text strictly; throws `CatalogError` naming the file. Every text here is a file decoded from
 * UTF-8 (readText), which cannot hold a lone surrogate: the fast path need not scan for one.
 */
export function parseDocument(file: string, text: string): Json {
  let doc: unknown;
  try {
    doc = parseJsonFast(text, { utf8: true });
  } catch (err) {
    throw new CatalogError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  return objectOf(file, doc);
}

/** A file's text; throws `CatalogError` naming the file (as a parse error, as before). */
function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new CatalogError(`${file}: not valid JSON (${(err as Error).message})`);
  }
}

export function readJson(file: string): Json {
  return parseDocument(file, readText(file));
}

/** Check a parsed recipe document; throws `CatalogError` naming the file. */
export function checkRecipe(file: string, doc: Json): Json {
  const v = validate.recipe(doc);
  if (!v.valid) {
    const first = v.issues[0];
    throw new CatalogError(`${file}: not a valid recipe document (${first ? `${first.path || '/'} ${first.message}` : 'schema'})`);
  }
  if (typeof doc.id !== 'string' || doc.id === '') throw new CatalogError(`${file}: the recipe has no id`);
  if (typeof doc.hash === 'string' && documentHash(doc) !== doc.hash)
    throw new CatalogError(`${file}: hash does not match the document (${doc.hash as string})`);
  return doc;
}

/** Read and check one recipe document; throws `CatalogError` naming the file. */
export function readRecipe(file: string): Json {
  return checkRecipe(file, readJson(file));
}

/**
 * What a worker thread reports about file `i`: its text, checked (`plain`: `JSON.parse` of the text is the strict
 * parser's answer), or why it does not load.
 */
export type Checked = { i: number; text: string; plain: boolean } | { i: number; error: string };

/** Read and check file `i` as `readRecipe` does, for a worker thread (never throws). */
export function checkFile(i: number, file: string): Checked {
  try {
    const text = readText(file);
    const fast = parseJsonIfPlain(text, { utf8: true });
    checkRecipe(file, fast !== undefined ? objectOf(file, fast.value) : parseDocument(file, text));
    return { i, text, plain: fast !== undefined };
  } catch (err) {
    return { i, error: err instanceof CatalogError ? err.message : `${file}: cannot be checked (${(err as Error).message})` };
  }
}

/** The document a worker checked, parsed again from the same text in this thread. */
export function documentOf(file: string, c: Checked): Json {
  if ('error' in c) throw new CatalogError(c.error);
  return c.plain ? (JSON.parse(c.text) as Json) : objectOf(file, parseJson(c.text));
}
