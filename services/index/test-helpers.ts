/** Helpers shared by the index tests: a key, a small generated catalog in a temp dir, recipe edits. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../core/canonical.js';
import { documentHash } from '../../core/hash.js';
import { generateKeyFile, type KeyFile } from '../../core/keys.js';
import { writeCatalog } from '../catalog/generate.js';

export const FIXED_NOW = () => new Date('2026-11-20T12:00:00Z');

export function testKey(kid = 'https://index.test#k1'): KeyFile {
  return generateKeyFile({ kid, actor: 'index.test', validFrom: '2026-01-01T00:00:00Z' });
}

/** Write `count` synthetic recipes into `dir`; returns the file names. */
export function smallCatalog(dir: string, count = 30, seed = 'test'): string[] {
  return writeCatalog(dir, count, seed);
}

/** Change a recipe file in place with `edit`, re-hashing it so it stays valid. */
export function editRecipe(file: string, edit: (doc: Record<string, unknown>) => void): Record<string, unknown> {
  const doc = parseJson(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(doc);
  const { hash: _h, ...rest } = doc;
  const next = { ...rest, hash: documentHash(rest) };
  writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
  return next;
}

export function readJson(file: string): Record<string, unknown> {
  return parseJson(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

export function outPath(out: string, rel: string): string {
  return join(out, rel);
}
