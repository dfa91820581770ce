/**
 * Canonical document hashes (RFC 8785 + SHA-256) of the koshari recipe per second, and the strict parser on
 * the same document. Uses examples/recipes/koshari.svc.json when the project has it, else the reference copy
 * beside the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { canonicalize, parseJson } from '../core/canonical.js';
import { documentHash } from '../core/hash.js';
import { report, throughput } from './stats.js';

const candidates = [
  '../examples/recipes/koshari.svc.json',
  '../examples/koshari.svc.json',
  '../../shared/reference/examples/koshari.cookwala.json',
].map((p) => fileURLToPath(new URL(p, import.meta.url)));
const path = candidates.find((p) => existsSync(p));
if (path === undefined) {
  console.log('hash: no koshari recipe found (examples/recipes/koshari.svc.json or ../shared); nothing to measure');
} else {
  const text = readFileSync(path, 'utf8');
  const doc = parseJson(text) as Record<string, unknown>;
  console.log(`document: ${path.split('/').slice(-2).join('/')} (${text.length} bytes, canonical ${canonicalize(doc).length} bytes)`);
  report(
    'documentHash(koshari)',
    throughput(() => documentHash(doc), 5, 1000),
    'hashes/s',
    '≥ 5,000/s',
  );
  report(
    'parseJson(koshari)',
    throughput(() => parseJson(text), 5, 1000),
    'parses/s',
  );
  report(
    'JSON.parse(koshari) for comparison',
    throughput(() => JSON.parse(text), 3, 500),
    'parses/s',
  );
}
