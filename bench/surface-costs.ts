/**
 * What each surface's first use costs the hub, for docs/performance.md's memory section. `npx tsx
 * bench/surface-costs.ts` (after `npm run build`) compiles this file and the hub's two harness files beside dist/ (as
 * bench/memory-child.ts does: tsx's loader would be counted otherwise) and runs, per surface and in a process of its
 * own, `node dist/bench/surface-costs.js SURFACE`: a hub with every feature (test-support/fuzz-target.ts's), its
 * memory read after two forced GCs, three requests to that surface, a second, two forced GCs and a second reading.
 * It prints one row per surface (RSS, anonymous, heap used, code space, external: before and the difference) and
 * the load average. One process per surface, so no surface is charged for what another loaded. Not a test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { keepYoungGenerationSmall } from '../platform/young-generation.js';

const SURFACES = ['rest', 'graphql', 'mcp', 'a2a', 'pairing', 'dashboard', 'webhooks'];

if (process.argv[2] === undefined) {
  // The driver: compile beside dist/ and run each surface in a fresh, compiled process.
  const { execFileSync } = await import('node:child_process');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const { dirname } = await import('node:path');
  const { loadavg } = await import('node:os');
  const { fileURLToPath } = await import('node:url');
  const { transformSync } = await import('esbuild');
  const root = fileURLToPath(new URL('..', import.meta.url));
  for (const f of ['bench/surface-costs.ts', 'test-support/fuzz-target.ts', 'test-support/hub-app.ts']) {
    const js = join(root, 'dist', f.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(js), { recursive: true });
    writeFileSync(js, transformSync(readFileSync(join(root, f), 'utf8'), { loader: 'ts', format: 'esm', target: 'node20' }).code);
  }
  const load = () => loadavg()[0]?.toFixed(1);
  console.log(`load average ${load()} before`);
  console.log('| surface | RSS before | RSS | anonymous | heap used | code | external |\n|---|---|---|---|---|---|---|');
  for (const name of SURFACES) {
    const out = execFileSync(process.execPath, [join(root, 'dist/bench/surface-costs.js'), name], { encoding: 'utf8' });
    const r = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<'before' | 'after', Record<string, number>>;
    const d = (k: string) => `+${((r.after[k] ?? 0) - (r.before[k] ?? 0)).toFixed(1)}`;
    console.log(
      `| ${name} | ${r.before.rss?.toFixed(1)} | ${d('rss')} | ${d('anon')} | ${d('heapUsed')} | ${d('code')} | ${d('external')} |`,
    );
  }
  console.log(`load average ${load()} after (MB; the differences are first use, after forced GCs)`);
  process.exit(0);
}

keepYoungGenerationSmall();
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const { fuzzHub } = await import('../test-support/fuzz-target.js');
const MB = 1048576;
const surface = process.argv[2] ?? 'none';

function read() {
  gc();
  gc();
  const m = process.memoryUsage();
  const smaps = readFileSync('/proc/self/smaps_rollup', 'utf8');
  const anon = Number(/^Anonymous:\s+(\d+) kB/m.exec(smaps)?.[1] ?? 0) / 1024;
  const code = (v8.getHeapSpaceStatistics().find((s) => s.space_name === 'code_space')?.space_used_size ?? 0) / MB;
  return { rss: m.rss / MB, anon, heapUsed: m.heapUsed / MB, code, external: m.external / MB };
}

const dir = mkdtempSync(join(tmpdir(), 'hearth-surface-'));
const h = await fuzzHub(dir);
const { SCOPES } = await import('../runtime/hub/types.js');
const token = h.newToken([...SCOPES], 'human', 'probe').token;
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
/** One request over node:http (which the hub has loaded already: fetch would charge undici to the surface). */
const call = (method: string, path: string, headers: Record<string, string>, body?: string) =>
  new Promise<string>((resolve, reject) => {
    const req = request(`${h.url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(body);
  });
const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
  call('POST', path, { ...auth, 'idempotency-key': `k-${Math.random()}`, ...extra }, JSON.stringify(body));
const get = (path: string) => call('GET', path, auth);

const hits: Record<string, () => Promise<unknown>> = {
  none: async () => undefined,
  rest: () => get('/svc/v1/nope'),
  graphql: () => post('/svc/v1/graphql', { query: '{ __typename }' }),
  mcp: () =>
    post(
      '/svc/v1/mcp',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'p', version: '1' } },
      },
      { accept: 'application/json, text/event-stream' },
    ),
  a2a: () => post('/a2a', { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } }, { 'a2a-version': '1.0' }),
  pairing: () => post('/svc/v1/pair', { name: 'probe', kind: 'agent', scopes: ['read'] }),
  dashboard: () => get('/'),
  webhooks: () => post('/svc/v1/subscriptions', { url: 'http://127.0.0.1:9/hook', types: ['svc.safety.'], secret: 'a-secret-of-sixteen+' }),
};
const hit = hits[surface];
if (!hit) throw new Error(`unknown surface ${surface}: ${Object.keys(hits).join(', ')}`);
await new Promise((r) => setTimeout(r, 500));
const before = read();
let sample = '';
for (let i = 0; i < 3; i++) sample = String(await hit());
await new Promise((r) => setTimeout(r, 1000));
const after = read();
console.log(JSON.stringify({ surface, before, after, answer: sample.slice(0, 120) }));
await h.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
