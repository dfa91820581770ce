/**
 * Stop is never refused (issue 12 item 6): over real HTTP, the executor's stop and the hub's emergency stop
 * answer success to any body (malformed JSON, wrong or broken content types, 10 MB, wrong types) and the
 * simulated heater's physical power is 0 afterwards. MCP `emergency_stop` stops with any arguments.
 */
import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { executeRequest, newKey } from '../app/testing.js';
import { FRY_RECIPE, startHub, type TestHub } from '../hub/test-helpers.js';

const power = (h: TestHub) => h.app.ctx.rig.heaters.get('fryer')?.power ?? -1;

/** Start the fryer recipe through the executor and run simulated time until the fryer heats. */
async function heatUp(t: Test, h: TestHub, admin: string): Promise<string> {
  if (h.app.ctx.supervisor.status().latched) {
    t.equal((await h.call('POST', '/svc/v1/safety/reset', { token: admin, body: {} })).status, 200, 'latch reset');
  }
  const key = newKey();
  const start = await h.call('POST', '/v1/executions', { token: admin, key, body: executeRequest(h.app, FRY_RECIPE, key) });
  t.equal(start.status, 202, JSON.stringify(start.body).slice(0, 300));
  const id = start.body.id as string;
  t.ok(await h.runUntil(() => power(h) > 0, 120_000, 1000), 'the fryer heats');
  return id;
}

/** A raw HTTP POST (so any header, body and framing goes on the wire as given). */
function post(
  url: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer | string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const TEN_MB = Buffer.alloc(10 * 1024 * 1024, 0x61);

/** Bodies no stop may refuse: [label, headers, body]. */
const BODIES: [string, Record<string, string>, Buffer | string | undefined][] = [
  ['no body', {}, undefined],
  ['malformed JSON', { 'content-type': 'application/json' }, '{"reason": '],
  ['text/plain', { 'content-type': 'text/plain' }, 'stop please'],
  ['a broken content type', { 'content-type': ';;;==' }, '{}'],
  ['form data', { 'content-type': 'application/x-www-form-urlencoded' }, 'reason=smoke'],
  ['a body without content type', { 'content-length': '5' }, 'hello'],
  ['a 10 MB JSON body', { 'content-type': 'application/json' }, TEN_MB],
  ['a 10 MB octet stream', { 'content-type': 'application/octet-stream' }, TEN_MB],
  ['reason of the wrong type', { 'content-type': 'application/json' }, '{"reason": 42, "extra": [1,2,3]}'],
  ['an array', { 'content-type': 'application/json' }, '[1,2,3]'],
  ['a long reason', { 'content-type': 'application/json' }, JSON.stringify({ reason: 'x'.repeat(5000) })],
  ['a malformed Idempotency-Key', { 'idempotency-key': 'x' }, undefined],
];

t.test('the executor stop answers 202 to any body and the heater is off', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const admin = h.token(['read', 'cook', 'admin']);
  await h.presence(true);
  for (const [label, headers, body] of BODIES) {
    const id = await heatUp(t, h, admin);
    const res = await post(h.url, `/v1/executions/${id}/stop`, headers, body);
    t.equal(res.status, 202, `${label}: 202 (${res.text.slice(0, 200)})`);
    t.equal(power(h), 0, `${label}: the fryer's physical power is 0`);
    t.equal(JSON.parse(res.text).state, 'stopped', `${label}: the execution is stopped`);
  }
  // The same key with another body is not a 422: stop needs no key and a reused one changes nothing.
  const id = await heatUp(t, h, admin);
  const key = { 'idempotency-key': 'stop-key-0001', 'content-type': 'application/json' };
  t.equal((await post(h.url, `/v1/executions/${id}/stop`, key, '{"reason":"a"}')).status, 202);
  t.equal((await post(h.url, `/v1/executions/${id}/stop`, key, '{"reason":"b"}')).status, 202, 'a reused key with another body');
  t.equal((await post(h.url, '/v1/executions/ex-nope/stop', {}, 'junk')).status, 404, 'an unknown execution is still 404');
});

t.test('the hub emergency stop answers 202 to any body with any token, heat off, warnings in the answer', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const admin = h.token(['read', 'cook', 'admin']);
  const anyScope = h.token(['notify'], 'agent');
  await h.presence(true);
  for (const [label, headers, body] of BODIES) {
    await heatUp(t, h, admin);
    const res = await post(h.url, '/svc/v1/safety/estop', { ...headers, authorization: `Bearer ${anyScope}` }, body);
    t.equal(res.status, 202, `${label}: 202 (${res.text.slice(0, 200)})`);
    t.equal(power(h), 0, `${label}: the fryer's physical power is 0`);
    const doc = JSON.parse(res.text) as { latched: boolean; warnings?: string[]; reason?: string };
    t.equal(doc.latched, true);
    if (label === 'reason of the wrong type') t.match(doc.warnings, [/unexpected members/, /reason must be a string/]);
    if (label === 'a long reason') t.equal(doc.reason?.length, 300, 'a long reason is cut, not refused');
    if (label === 'malformed JSON') t.match(doc.warnings, [/not valid JSON/]);
  }
  const none = await post(h.url, '/svc/v1/safety/estop', { 'content-type': 'text/plain' }, 'x');
  t.equal(none.status, 401, 'without a token the hub e-stop still needs one (the physical button needs none)');
});

t.test('MCP emergency_stop stops with any arguments', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const admin = h.token(['read', 'cook', 'admin']);
  const agent = h.token(['read'], 'agent');
  await h.presence(true);
  const client = new Client({ name: 'stop-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }),
  );
  t.teardown(() => client.close());
  const cases: [string, Record<string, unknown>][] = [
    ['no arguments', {}],
    ['a number reason', { reason: 12 }],
    ['an object reason', { reason: { a: 1 } }],
    ['a long reason', { reason: 'y'.repeat(10_000) }],
    ['an extra key', { reason: 'smoke', force: true }],
  ];
  for (const [label, args] of cases) {
    await heatUp(t, h, admin);
    const r = await client.callTool({ name: 'emergency_stop', arguments: args });
    t.notOk(r.isError, `${label}: not an error (${JSON.stringify(r.structuredContent ?? r.content).slice(0, 200)})`);
    t.equal(power(h), 0, `${label}: the fryer's physical power is 0`);
    const doc = r.structuredContent as { accepted: boolean; warnings?: string[] };
    t.equal(doc.accepted, true);
    if (label !== 'no arguments') t.ok((doc.warnings ?? []).length > 0, `${label}: a warning says what was wrong`);
  }
});
