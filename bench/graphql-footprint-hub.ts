/**
 * The `hub` probe of bench/graphql-footprint.ts, run compiled in a fresh process: a hub with every feature, its
 * memory when up, after the first GraphQL query, the first graphql-ws subscription and 1,000 mixed requests. It
 * prints the readings as one JSON line. The client uses node:http and ws, which the hub has loaded already.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { keepYoungGenerationSmall } from '../platform/young-generation.js';
import { mixedRequests, type Reading, reader } from './graphql-footprint.js';

keepYoungGenerationSmall();
const read = reader();
const { fuzzHub } = await import('../test-support/fuzz-target.js');
const { SCOPES } = await import('../runtime/hub/types.js');
const dir = mkdtempSync(join(tmpdir(), 'hearth-gql-footprint-'));
const h = await fuzzHub(dir);
const token = h.newToken([...SCOPES], 'human', 'probe').token;
const PATH = '/svc/v1/graphql';

const call = (method: string, path: string, body?: string) =>
  new Promise<string>((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
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
const gql = (method: string, query: string, variables?: Record<string, unknown>) =>
  method === 'GET'
    ? call('GET', `${PATH}?query=${encodeURIComponent(query)}`)
    : call('POST', PATH, JSON.stringify({ query, ...(variables ? { variables } : {}) }));

/** One graphql-transport-ws subscription: connect, subscribe, wait until it listens on the bus, complete, close. */
async function subscribeOnce(): Promise<void> {
  const bus = h.app.ctx.bus;
  const before = bus.listenerCount('safety');
  const ws = new WebSocket(`${h.url.replace(/^http/, 'ws')}${PATH}`, 'graphql-transport-ws');
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const acked = new Promise<void>((resolve) => ws.once('message', () => resolve()));
  ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
  await acked;
  ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { safetyEvents { kind } }' } }));
  for (let i = 0; i < 500 && bus.listenerCount('safety') === before; i++) await new Promise((r) => setTimeout(r, 10));
  if (bus.listenerCount('safety') === before) throw new Error('the subscription never started');
  ws.send(JSON.stringify({ id: '1', type: 'complete' }));
  ws.close();
  await new Promise((r) => ws.once('close', r));
}

await new Promise((r) => setTimeout(r, 500));
const readings: Reading[] = [read()];
const first = await gql('POST', '{ mode { mode } }');
if (!first.includes('"normal"')) throw new Error(`unexpected answer: ${first}`);
await new Promise((r) => setTimeout(r, 500));
readings.push(read());
await subscribeOnce();
await new Promise((r) => setTimeout(r, 500));
readings.push(read());
let ok = 0;
for (const [method, query, variables] of mixedRequests()) if ((await gql(method, query, variables)).startsWith('{')) ok++;
if (ok < 1000) throw new Error(`${1000 - ok} of the mixed requests were not answered as JSON`);
await new Promise((r) => setTimeout(r, 500));
readings.push(read());
console.log(JSON.stringify(readings));
await h.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
