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

/** Operations per CPU-second (user + system time of this process), over `rounds` rounds of about `ms` ms. */
function perCpuSecond(fn: () => void, rounds = 5, ms = 1000): number[] {
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    let n = 0;
    while (performance.now() - start < ms) {
      for (let i = 0; i < 50; i++) fn();
      n += 50;
    }
    const cpu = process.cpuUsage(cpu0);
    out.push((n * 1e6) / (cpu.user + cpu.system));
  }
  return out;
}

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
  // On a shared, busy machine wall-clock rates understate the code; operations per CPU-second of this process do not.
  report(
    'documentHash(koshari) per CPU-second',
    perCpuSecond(() => documentHash(doc)),
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
