/**
 * Canonical document hashes (RFC 8785 + SHA-256) of the koshari recipe per second, and the strict parser on
 * the same document. The ratio to `sha256(JSON.stringify(doc))` of the same document (target ≤ 1.5×), warm (the
 * writer's cache of object shapes filled, as in a running hub) and cold (emptied before every hash), and status
 * reads over keep-alive HTTP against a bare Fastify floor answering the same body (bench/status-floor.ts; target
 * ≤ 1.5× the floor's server CPU per read); `--no-status` skips the latter. The project's writer and the `canonicalize` package (wrapped by the same strict checks)
 * are measured side by side in this one run, interleaved, so a busy machine slows both alike. Uses examples/recipes/koshari.svc.json when the project has it, else the reference copy
 * beside the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import jcs from 'canonicalize';
import { canonicalize, parseJson } from '../core/canonical.js';
import { DEFAULT_HASH_DROP, documentHash, sha256Hex, withoutMembers } from '../core/hash.js';
import { clearShapeCache } from '../core/json-bytes.js';
import { canonicalizeWithLibrary } from '../test-support/canonical-library.js';
import { report, throughput } from './stats.js';
import { statusReadsAgainstFloor } from './status-floor.js';

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
  // Side by side: the same document hash through the project's writer and through the package. Rounds alternate.
  const viaLibrary = () => `sha256:${sha256Hex(canonicalizeWithLibrary(withoutMembers(doc, DEFAULT_HASH_DROP)))}`;
  if (viaLibrary() !== documentHash(doc)) throw new Error('the two implementations disagree on koshari');
  const bare = () => `sha256:${sha256Hex(jcs(withoutMembers(doc, DEFAULT_HASH_DROP)) as string)}`;
  const own: number[] = [];
  const lib: number[] = [];
  const pkg: number[] = [];
  for (let r = 0; r < 5; r++) {
    own.push(...perCpuSecond(() => documentHash(doc), 1, 600));
    lib.push(...perCpuSecond(viaLibrary, 1, 600));
    pkg.push(...perCpuSecond(bare, 1, 600));
  }
  report('documentHash, core/json-bytes.ts writer, per CPU-second', own, 'hashes/s');
  report('documentHash, canonicalize package + strict checks, per CPU-second', lib, 'hashes/s');
  report('documentHash, canonicalize package alone (no checks: coerces), per CPU-second', pkg, 'hashes/s');
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] as number;
  console.log(`  ratio: the project's writer is ${(median(own) / median(lib)).toFixed(2)}× the package (medians)`);
  // The limit the issue sets: the canonical hash within 1.5× of hashing JSON.stringify's output, in the same run.
  const plain = () => `sha256:${sha256Hex(JSON.stringify(doc))}`;
  // Cold: the writer's cache of object shapes (sorted member names, written once) emptied before every hash, as if
  // each hash were the first document of its kind the process sees. Warm is the steady state of a running hub.
  const cold = () => {
    clearShapeCache();
    documentHash(doc);
  };
  const canon: number[] = [];
  const canonCold: number[] = [];
  const floor: number[] = [];
  const load0 = loadavg()[0];
  for (let r = 0; r < 7; r++) {
    canon.push(...perCpuSecond(() => documentHash(doc), 1, 500));
    floor.push(...perCpuSecond(plain, 1, 500));
    canonCold.push(...perCpuSecond(cold, 1, 500));
  }
  const load1 = loadavg()[0];
  report('documentHash(koshari), per CPU-second', canon, 'hashes/s');
  report('documentHash(koshari), shape cache emptied before each, per CPU-second', canonCold, 'hashes/s');
  report('sha256(JSON.stringify(koshari)), per CPU-second', floor, 'hashes/s');
  const ratio = (x: number[]) => (median(floor) / median(x)).toFixed(2);
  const load = `load average ${load0.toFixed(2)} → ${load1.toFixed(2)}`;
  console.log(
    `  ratio: the canonical hash takes ${ratio(canon)}× the time of sha256(JSON.stringify(doc)) (medians; target ≤ 1.5×; ${load})`,
  );
  console.log(`  ratio, shape cache emptied before each hash: ${ratio(canonCold)}× (medians, same rounds)`);
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
if (!process.argv.includes('--no-status')) await statusReadsAgainstFloor();
