import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import t, { type Test } from 'tap';
import { executeRequest, KOSHARI, newKey, startTestApp, type TestApp } from '../app/testing.js';

/** Every answer to a hostile request: a 4xx problem document, never a 5xx. */
async function expectProblem(t: Test, h: TestApp, req: InjectOptions, name: string): Promise<number> {
  const res = await h.app.ctx.http.inject(req);
  const ok = res.statusCode >= 400 && res.statusCode < 500;
  t.ok(ok, `${name}: 4xx (got ${res.statusCode})`);
  if (!ok) return res.statusCode;
  t.match(res.headers['content-type'], /^application\/problem\+json/, `${name}: problem media type`);
  const body = res.json();
  t.ok(
    typeof body.type === 'string' &&
      body.type.startsWith(`${h.app.baseUrl}/errors/`) &&
      body.status === res.statusCode &&
      typeof body.title === 'string',
    `${name}: problem document`,
  );
  t.notMatch(res.body, /at [A-Za-z]+ \(|node_modules|\.ts:\d+/, `${name}: no stack trace`);
  return res.statusCode;
}

const WRONG_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  true,
  false,
  '',
  ' ',
  'x'.repeat(5000),
  [],
  [1, 2],
  {},
  { $ref: '#' },
  '\u0000',
  '💥'.repeat(100),
];

t.test('a few hundred malformed or hostile bodies: all 4xx problem documents', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  const headers = { ...h.auth, 'content-type': 'application/json' };
  const cases: { name: string; req: InjectOptions }[] = [];
  const start = (payload: string | Record<string, unknown>, extra: Record<string, string> = {}) => ({
    method: 'POST' as const,
    url: '/v1/executions',
    headers: { ...headers, 'idempotency-key': newKey(), ...extra },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  const rawTexts = [
    '{',
    '[1,',
    '{"a":}',
    'nul',
    '"unterminated',
    '{} trailing',
    '{"a":1,}',
    "{'a':1}",
    '{"a":NaN}',
    '{"a":Infinity}',
    '{"a":-Infinity}',
    '/* c */ {}',
    '{"a":1}{"b":2}',
    '\uFEFF{}',
    '{"a":"\\ud800"}',
    '{"a":"\\x41"}',
    '{"a":01}',
    '{"a":1.}',
    '{"a":.5}',
    '{"a":9007199254740993}',
    '{"core":"0.2.0","core":"0.2.0"}',
    '{"a":"tab\there"}',
    `${'['.repeat(2000)}${']'.repeat(2000)}`,
    `${'{"a":'.repeat(300)}1${'}'.repeat(300)}`,
    '1',
    '"a string"',
    '[]',
    'null',
    'true',
    '[{"core":"0.2.0"}]',
  ];
  for (const text of rawTexts) {
    cases.push({ name: `raw ${JSON.stringify(text.slice(0, 30))}`, req: start(text) });
    cases.push({
      name: `incident raw ${JSON.stringify(text.slice(0, 30))}`,
      req: {
        method: 'POST',
        url: '/v1/incidents',
        headers: { 'content-type': 'application/json', 'idempotency-key': newKey() },
        payload: text,
      },
    });
  }
  const valid = executeRequest(h.app, KOSHARI, 'placeholder-key');
  for (const field of Object.keys(valid)) {
    for (const v of WRONG_VALUES) {
      if (field === 'core' && typeof v === 'string' && v.length > 0 && v.length <= 32) continue; // a short string core is a refusal, tested elsewhere
      if (field === 'requestedBy' && typeof v === 'string' && v.length > 0 && v.length <= 200) continue;
      const key = newKey();
      cases.push({
        name: `${field} = ${JSON.stringify(v).slice(0, 20)}`,
        req: start({ ...valid, idempotencyKey: key, [field]: v }, { 'idempotency-key': key }),
      });
    }
  }
  for (const extra of ['__proto__', 'constructor', 'prototype', 'foo', 'humanPresent', 'present', 'limits']) {
    const key = newKey();
    cases.push({
      name: `unknown field ${extra}`,
      req: start(`{${JSON.stringify(extra)}:{"polluted":true},${JSON.stringify({ ...valid, idempotencyKey: key }).slice(1)}`, {
        'idempotency-key': key,
      }),
    });
  }
  cases.push({ name: 'huge body', req: start(JSON.stringify({ ...valid, requestedBy: 'x'.repeat(400_000) })) });
  cases.push({ name: 'long field within the body limit', req: start({ ...valid, requestedBy: 'x'.repeat(100_000) }) });
  for (const ct of [
    'text/plain',
    'application/xml',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded',
    'application/jsonp',
  ]) {
    cases.push({
      name: `content type ${ct}`,
      req: { ...start(JSON.stringify(valid)), headers: { ...headers, 'idempotency-key': newKey(), 'content-type': ct } },
    });
  }
  for (const key of ['short', 'x'.repeat(129), 'has space', '"unterminated', '"bad\\e"'])
    cases.push({ name: `idempotency key ${key.slice(0, 12)}`, req: start(valid, { 'idempotency-key': key }) });
  const incident = {
    core: '0.2.0',
    kind: 'IncidentReport',
    id: 'inc-1',
    date: '2026-11-01',
    category: 'burn',
    severity: 'low',
    description: 'x',
  };
  for (const field of Object.keys(incident)) {
    for (const v of WRONG_VALUES.slice(0, 8)) {
      cases.push({
        name: `incident ${field} = ${JSON.stringify(v)}`,
        req: {
          method: 'POST',
          url: '/v1/incidents',
          headers: { 'content-type': 'application/json', 'idempotency-key': newKey() },
          payload: JSON.stringify({ ...incident, [field]: v }),
        },
      });
    }
  }
  for (const body of ['{"present":"yes"}', '{"present":1}', '{}', '{"present":true,"who":"me"}', '[true]']) {
    cases.push({
      name: `sim presence ${body}`,
      req: { method: 'POST', url: '/sim/v1/presence', headers: { 'content-type': 'application/json' }, payload: body },
    });
  }
  for (const body of [
    '{"sensor":"oil","tempC":"hot"}',
    '{"sensor":"nope","tempC":20}',
    '{"sensor":"oil","tempC":1e9}',
    '{"kind":"melt","target":"oil"}',
    '{"clear":false}',
  ]) {
    const url = body.includes('kind') || body.includes('clear') ? '/sim/v1/faults' : '/sim/v1/temperature';
    cases.push({
      name: `sim ${url} ${body}`,
      req: { method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: body },
    });
  }
  cases.push({
    name: 'sim clock without manual time',
    req: { method: 'POST', url: '/sim/v1/clock', headers: { 'content-type': 'application/json' }, payload: '{"advanceMs":-5}' },
  });
  for (const id of ['x', 'a'.repeat(300), '..%2F..%2Fetc', '%00', 'ex-%E0%A4%A']) {
    cases.push({ name: `status id ${id.slice(0, 12)}`, req: { method: 'GET', url: `/v1/executions/${id}`, headers: h.auth } });
    cases.push({
      name: `resume id ${id.slice(0, 12)}`,
      req: { method: 'POST', url: `/v1/executions/${id}/resume`, headers: { ...h.auth, 'idempotency-key': newKey(), 'if-match': '"1"' } },
    });
  }
  cases.push({
    name: 'resume with a hostile body',
    req: {
      method: 'POST',
      url: '/v1/executions/ex-abc/resume',
      headers: { ...headers, 'idempotency-key': newKey(), 'if-match': '"1"' },
      payload: '{"force":true}',
    },
  });
  cases.push({ name: 'delete an execution', req: { method: 'DELETE', url: '/v1/executions/ex-abc', headers: h.auth } });
  cases.push({ name: 'put limits', req: { method: 'PUT', url: '/v1/safety-limits', headers, payload: '{"limits":[]}' } });
  cases.push({ name: 'post limits', req: { method: 'POST', url: '/v1/safety-limits', headers, payload: '{"limits":[]}' } });
  let n = 0;
  for (const c of cases) {
    await expectProblem(t, h, c.req, c.name);
    n++;
  }
  t.ok(n >= 250, `${n} hostile requests`);
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
  t.equal(h.app.ctx.executor.activeId, undefined, 'nothing started cooking');
  t.equal((await h.app.ctx.http.inject({ method: 'GET', url: '/v1/safety-limits' })).json().limits.length > 0, true, 'limits unchanged');
});

t.test('random JSON bodies never get a 5xx', async (t) => {
  const h = await startTestApp();
  t.teardown(() => h.close());
  let count = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.jsonValue({ maxDepth: 6 }),
      fc.constantFrom('/v1/executions', '/v1/incidents', '/sim/v1/faults', '/v1/executions/ex-abc/resume'),
      async (value, url) => {
        const res = await h.app.ctx.http.inject({
          method: 'POST',
          url,
          headers: { ...h.auth, 'content-type': 'application/json', 'idempotency-key': newKey(), 'if-match': '"0"' },
          payload: JSON.stringify(value),
        });
        count++;
        return res.statusCode < 500 && res.statusCode !== 200 && res.statusCode !== 202
          ? res.headers['content-type']?.toString().startsWith('application/problem+json') === true
          : res.statusCode < 500;
      },
    ),
    { numRuns: 150, seed: 42 },
  );
  t.equal(count, 150);
  t.equal(h.app.ctx.executor.activeId, undefined);
});
