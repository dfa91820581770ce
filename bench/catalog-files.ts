/** Catalog folders for the recipe API's bench (bench/recipe-api.bench.ts): generated, and changed as a sync would. */
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentHash } from '../core/hash.js';
import { generateCatalog } from '../services/catalog/generate.js';
import type { Json } from '../services/recipe-api/rows.js';

/**
 * `count` catalog-shaped recipes in `out`: the generator makes at most 5,000 per seed, so a larger catalog is
 * several seeds, each chunk's ids given a prefix of their own and the documents rehashed.
 */
export function writeBenchCatalog(out: string, count: number): void {
  mkdirSync(out, { recursive: true });
  for (let chunk = 0; chunk * 5000 < count; chunk++) {
    const files = generateCatalog(Math.min(5000, count - chunk * 5000), `bench${chunk || ''}`, 'catalog');
    for (const f of files) {
      if (chunk === 0) {
        writeFileSync(join(out, f.name), f.text);
        continue;
      }
      const doc = JSON.parse(f.text) as Json;
      doc.id = `c${chunk}-${doc.id as string}`;
      delete doc.hash;
      doc.hash = documentHash(doc);
      writeFileSync(join(out, `c${chunk}-${f.name}`), JSON.stringify(doc));
    }
  }
}

/** Files changed between a restart and the start after it (as a sync that replaced a few recipes). */
export const CHANGED = 10;

/** Give `n` of the catalog's files a new status-change time (round `round` picks other files than the last). */
export function touchSome(folder: string, n: number, round: number): void {
  const names = readdirSync(folder).sort();
  const step = Math.max(1, Math.floor(names.length / n));
  const now = new Date();
  for (let k = 0; k < n && k * step < names.length; k++) {
    const name = names[(k * step + round) % names.length] as string;
    utimesSync(join(folder, name), now, now);
  }
}
