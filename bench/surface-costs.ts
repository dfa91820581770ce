/**
 * What each surface's first use costs the hub, for docs/performance.md's memory section: `node
 * dist/bench/surface-costs.js SURFACE` (compiled beside dist/ as bench/memory-child.ts compiles the hub's own files)
 * starts a hub with every feature (test-support/fuzz-target.ts's), reads its memory after two forced GCs, sends that
 * surface three requests, waits, collects again and prints one JSON line: RSS, anonymous, heap used, code space and
 * external, before and after. One surface per process, so no surface is charged for what another loaded. Not a test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { keepYoungGenerationSmall } from '../platform/young-generation.js';

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
  a2a: () => post('/a2a', { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'nope' } }),
  pairing: () => post('/svc/v1/pair', { name: 'probe', kind: 'agent', scopes: ['read'] }),
  dashboard: () => get('/dashboard/'),
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
