/**
 * Locates and reads the data files under schemas/ (JSON Schemas, vocabularies, policy packs). Works both from
 * source (schemas/x.ts next to schemas/x.json) and from the build (dist/schemas/x.js, data in schemas/).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const roots = [here, fileURLToPath(new URL('../../schemas/', import.meta.url))];

/** Absolute path of a data file under schemas/ (`rel` like `vocab/ops.json`), or undefined if absent. */
export function dataPath(rel: string): string | undefined {
  for (const root of roots) {
    const p = `${root}${rel}`;
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** Read and parse a data file under schemas/; throws a clear error if it is missing or not JSON. */
export function readData(rel: string): unknown {
  const p = dataPath(rel);
  if (p === undefined) throw new Error(`data file schemas/${rel} is missing`);
  try {
    return JSON.parse(readFileSync(p, 'utf8'));
  } catch (err) {
    throw new Error(`data file schemas/${rel} is not valid JSON: ${(err as Error).message}`);
  }
}
