/** Test catalog for the recipe API: the reference's catalog recipes copied into a temporary folder. */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentHash } from '../../core/hash.js';
import { referenceDir } from '../../test-support/shared.js';

export const CATALOG_SOURCES = [
  `${referenceDir}catalog/archive`,
  `${referenceDir}catalog/kids`,
  `${referenceDir}catalog/world`,
  `${referenceDir}examples/catalog`,
];

/** Copy every reference catalog recipe into `dir`; returns the ids. */
export function copyReferenceCatalog(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const ids: string[] = [];
  for (const src of CATALOG_SOURCES) {
    const sub = join(dir, src.split('/').filter(Boolean).pop() as string);
    mkdirSync(sub, { recursive: true });
    for (const n of readdirSync(src).filter((f) => f.endsWith('.json'))) {
      copyFileSync(join(src, n), join(sub, n));
      ids.push(n.replace(/\.cookwala\.json$/, ''));
    }
  }
  return ids;
}

/**
 * A facts-only recipe that (wrongly) carries step wording, rehashed so it loads: the API must still withhold
 * the wording. Returns the planted sentence.
 */
export function plantFactsOnlyWording(dir: string): { id: string; sentence: string } {
  const doc = JSON.parse(readFileSync(`${referenceDir}catalog/world/w-es-004.cookwala.json`, 'utf8')) as Record<string, unknown>;
  const sentence = 'Planted step wording that must never be served';
  doc.id = 'w-es-904';
  const text = doc.text as Record<string, Record<string, unknown>>;
  (text.en as Record<string, unknown>).steps = { n1: `${sentence} (en).` };
  (text.en as Record<string, unknown>).intro = `${sentence} (intro).`;
  (text.ar as Record<string, unknown>).steps = { n1: `${sentence} (ar).` };
  delete doc.hash;
  doc.hash = documentHash(doc);
  writeFileSync(join(dir, 'w-es-904.cookwala.json'), `${JSON.stringify(doc)}\n`);
  return { id: 'w-es-904', sentence };
}
