/**
 * Reading the inputs of an index build: recipe files, signed Recall documents and trusted key records.
 * Every refusal is a `BuildInputError` naming the file and saying what is wrong with it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../../core/canonical.js';
import { documentHash } from '../../../core/hash.js';
import { parseJsonFast } from '../../../core/json-parse-fast.js';
import { type KeyRecord, parseKeyRecord } from '../../../core/keys.js';
import { verifyDocument } from '../../../core/signature.js';
import { validate } from '../../../schemas/index.js';
import type { RecallItem } from '../catalog.js';
import { type Json, type RecipeFacts, recipeFacts } from '../entry.js';

export class BuildInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BuildInputError';
  }
}

/** Recipe ids become file names, so they are held to the reference pattern. */
export const RECIPE_ID = /^[a-z0-9][a-z0-9-]{1,63}$/;
/** Recall ids likewise (they name /v1/recalls/{id}.json). */
export const DOC_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface SourceRecipe {
  file: string;
  text: string;
  doc: Json;
  facts: RecipeFacts;
}

/** JSON files of a directory, sorted by path; with `recursive`, also those of its sub-folders (dot-folders skipped). */
export function jsonFiles(dir: string, what: string, recursive = false): string[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new BuildInputError(`${what} ${dir} is not a directory`);
    names = readdirSync(dir);
  } catch (err) {
    if (err instanceof BuildInputError) throw err;
    throw new BuildInputError(`cannot read ${what} ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const out: string[] = [];
  for (const n of names.filter((x) => !x.startsWith('.')).sort()) {
    const p = join(dir, n);
    if (n.endsWith('.json')) out.push(p);
    else if (recursive && statSync(p, { throwIfNoEntry: false })?.isDirectory()) out.push(...jsonFiles(p, what, true));
  }
  return out;
}

function readJsonObject(file: string): { text: string; doc: Json } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new BuildInputError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let doc: unknown;
  try {
    doc = parseJsonFast(text);
  } catch (err) {
    throw new BuildInputError(`${file}: not valid JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new BuildInputError(`${file}: not a JSON object`);
  return { text, doc: doc as Json };
}

/** Check one recipe document: an id the index can publish, and a hash that matches its content. */
export function checkRecipe(file: string, text: string, doc: Json): SourceRecipe {
  if (typeof doc.id !== 'string' || !RECIPE_ID.test(doc.id)) {
    throw new BuildInputError(`${file}: "id" must match ${RECIPE_ID.source} (got ${JSON.stringify(doc.id)})`);
  }
  if (typeof doc.svc !== 'string' && typeof doc.cookwala !== 'string') throw new BuildInputError(`${file}: no spec version ("svc")`);
  if (typeof doc.hash !== 'string') throw new BuildInputError(`${file}: recipe ${doc.id} has no "hash"`);
  let actual: string;
  try {
    actual = documentHash(doc);
  } catch (err) {
    throw new BuildInputError(`${file}: cannot hash: ${(err as Error).message}`);
  }
  if (actual !== doc.hash) {
    throw new BuildInputError(`${file}: hash mismatch for recipe ${doc.id}: the file says ${doc.hash}, its content hashes to ${actual}`);
  }
  const v = validate.recipe(doc);
  if (!v.valid) {
    const first = v.issues.slice(0, 3).map((i) => `${i.path || '/'} ${i.message}`);
    const more = v.issues.length > 3 ? ` (and ${v.issues.length - 3} more)` : '';
    throw new BuildInputError(`${file}: recipe ${doc.id} is not a valid recipe document: ${first.join('; ')}${more}`);
  }
  return { file, text, doc, facts: recipeFacts(doc) };
}

/**
 * Read every recipe of `dir` and its sub-folders; refuses the first bad one and duplicate ids. A document that
 * `isRecipe` says is not a recipe goes to `other` (which may refuse it) instead.
 */
export function readRecipes(
  dir: string,
  onFile?: (done: number, total: number) => void,
  other?: { isRecipe: (doc: Json) => boolean; add: (file: string, doc: Json) => void },
): SourceRecipe[] {
  const files = jsonFiles(dir, 'recipes directory', true);
  const out: SourceRecipe[] = [];
  const seen = new Map<string, string>();
  files.forEach((file, i) => {
    const { text, doc } = readJsonObject(file);
    if (other && !other.isRecipe(doc)) {
      other.add(file, doc);
    } else {
      const r = checkRecipe(file, text, doc);
      const prev = seen.get(r.facts.id);
      if (prev !== undefined) throw new BuildInputError(`${file}: recipe id ${r.facts.id} is also used by ${prev}`);
      seen.set(r.facts.id, file);
      out.push(r);
    }
    onFile?.(i + 1, files.length);
  });
  if (out.length === 0) {
    throw new BuildInputError(
      `no recipes in ${dir}: it holds ${files.length === 0 ? 'no *.json files' : `${files.length} *.json files but none is a recipe`}; an index needs at least one recipe document`,
    );
  }
  return out;
}

/** One line of the recall list in /v1/changes (semantics §10). */
export interface SourceRecall {
  file: string;
  text: string;
  id: string;
  hash: string;
  items: RecallItem[];
}

/** The recipe id a recall target names: `cw:<catalog>:<id>` or a bare id. */
export function targetRecipeId(target: Json): string | undefined {
  const ref = typeof target.ref === 'string' ? target.ref : typeof target.id === 'string' ? target.id : undefined;
  if (ref === undefined) return undefined;
  const id = ref.includes(':') ? ref.slice(ref.lastIndexOf(':') + 1) : ref;
  return RECIPE_ID.test(id) ? id : undefined;
}

/** Read and verify every Recall document of `dir` against `trusted`; a bad one is refused, never skipped. */
export function readRecalls(dir: string, trusted: readonly KeyRecord[]): SourceRecall[] {
  const out: SourceRecall[] = [];
  const seen = new Set<string>();
  for (const file of jsonFiles(dir, 'recalls directory')) {
    const { text, doc } = readJsonObject(file);
    if (doc.kind !== 'Recall') throw new BuildInputError(`${file}: not a Recall document ("kind" is ${JSON.stringify(doc.kind)})`);
    if (typeof doc.id !== 'string' || !DOC_ID.test(doc.id)) throw new BuildInputError(`${file}: recall "id" must match ${DOC_ID.source}`);
    if (seen.has(doc.id)) throw new BuildInputError(`${file}: recall id ${doc.id} appears twice`);
    seen.add(doc.id);
    const v = verifyDocument(doc, trusted, { kind: 'Recall' });
    if (!v.ok) throw new BuildInputError(`${file}: recall ${doc.id} refused: signature check failed (${v.reason})`);
    const severity = typeof doc.severity === 'string' ? doc.severity : 'high';
    const message = typeof doc.detail === 'string' ? doc.detail : typeof doc.reason === 'string' ? doc.reason : `recall ${doc.id}`;
    const targets = Array.isArray(doc.targets) ? doc.targets : [];
    const items: RecallItem[] = [];
    for (const t of targets) {
      const target = typeof t === 'object' && t !== null ? (t as Json) : {};
      const id = targetRecipeId(target);
      if (id === undefined) throw new BuildInputError(`${file}: recall ${doc.id} has a target without a recipe id`);
      const item: RecallItem = { id, severity, message };
      // A target naming one revision by hash recalls that revision; anything else recalls every revision.
      if (target.allRevisions !== true && typeof target.hash === 'string') item.hash = target.hash;
      items.push(item);
    }
    if (items.length === 0) throw new BuildInputError(`${file}: recall ${doc.id} has no targets`);
    out.push({ file, text, id: doc.id, hash: v.hash, items });
  }
  return out;
}

/** Key records from a file holding one record, an array of them, or a document with `keys` (a discovery file). */
export function readTrustFile(file: string): KeyRecord[] {
  let json: unknown;
  try {
    json = parseJson(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new BuildInputError(`${file}: cannot read key records: ${(err as Error).message}`);
  }
  const list = Array.isArray(json) ? json : Array.isArray((json as Json | null)?.keys) ? ((json as Json).keys as unknown[]) : [json];
  return list.map((k, i) => {
    try {
      return parseKeyRecord(k, `key record ${i + 1}`);
    } catch (err) {
      throw new BuildInputError(`${file}: ${(err as Error).message}`);
    }
  });
}
