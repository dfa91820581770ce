// @own-process: a test here listens for the process's warnings, and Node prints a deprecation warning once per process.
import type { InjectOptions } from 'fastify';
import t from 'tap';
import { createHttpApp } from './app.js';
import { ProblemError } from './problems.js';

const BASE = 'http://device.test';

function build() {
  const app = createHttpApp({ baseUrl: BASE, bodyLimit: 1024 });
  app.post(
    '/things',
    {
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'size'],
          properties: {
            name: { type: 'string', maxLength: 10 },
            size: { type: 'integer' },
            tags: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
    async (req, reply) => reply.code(201).send({ got: req.body }),
  );
  app.get('/things/:id', { schema: { querystring: { type: 'object', properties: { n: { type: 'integer' } } } } }, async (req) => ({
    id: (req.params as { id: string }).id,
    n: (req.query as { n?: number }).n,
  }));
  app.get('/teapot', async () => {
    throw new ProblemError('conflict', 'not now', { hint: 'later' }, { 'Retry-After': '3' });
  });
  app.get('/boom', async () => {
    throw new Error('secret internals');
  });
  return app;
}

t.test('valid requests pass and query strings are coerced', async (t) => {
  const app = build();
  const ok = await app.inject({ method: 'POST', url: '/things', payload: { name: 'pan', size: 3 } });
  t.equal(ok.statusCode, 201);
  t.same(ok.json(), { got: { name: 'pan', size: 3 } });
  const q = await app.inject({ method: 'GET', url: '/things/a1?n=4' });
  t.same(q.json(), { id: 'a1', n: 4 });
  const plus = await app.inject({
    method: 'POST',
    url: '/things',
    headers: { 'content-type': 'application/vnd.x+json' },
    payload: '{"name":"a","size":1}',
  });
  t.equal(plus.statusCode, 201);
});

t.test('framework errors become problem documents', async (t) => {
  const app = build();
  const cases: { name: string; req: InjectOptions; status: number; slug: string }[] = [
    { name: 'unknown path', req: { method: 'GET', url: '/nope' }, status: 404, slug: 'not-found' },
    { name: 'wrong method', req: { method: 'DELETE', url: '/things' }, status: 405, slug: 'method-not-allowed' },
    {
      name: 'too large',
      req: { method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: `{"name":"${'x'.repeat(2000)}"}` },
      status: 413,
      slug: 'payload-too-large',
    },
    {
      name: 'text body',
      req: { method: 'POST', url: '/things', headers: { 'content-type': 'text/plain' }, payload: 'hi' },
      status: 415,
      slug: 'unsupported-media-type',
    },
    {
      name: 'bad json',
      req: { method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{"name":' },
      status: 400,
      slug: 'invalid-json',
    },
    {
      name: 'duplicate key',
      req: { method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{"name":"a","name":"b","size":1}' },
      status: 400,
      slug: 'invalid-json',
    },
    {
      name: 'unsafe integer',
      req: {
        method: 'POST',
        url: '/things',
        headers: { 'content-type': 'application/json' },
        payload: '{"name":"a","size":90071992547409930}',
      },
      status: 400,
      slug: 'invalid-json',
    },
    {
      name: 'wrong type',
      req: { method: 'POST', url: '/things', payload: { name: 'a', size: '3' } },
      status: 422,
      slug: 'validation-failed',
    },
    {
      name: 'unknown field',
      req: { method: 'POST', url: '/things', payload: { name: 'a', size: 3, extra: true } },
      status: 422,
      slug: 'validation-failed',
    },
    { name: 'no body', req: { method: 'POST', url: '/things' }, status: 422, slug: 'validation-failed' },
    { name: 'bad query', req: { method: 'GET', url: '/things/a?n=abc' }, status: 400, slug: 'bad-request' },
    { name: 'bad url', req: { method: 'GET', url: '/things/%E0%A4%A' }, status: 400, slug: 'bad-request' },
    { name: 'thrown problem', req: { method: 'GET', url: '/teapot' }, status: 409, slug: 'conflict' },
    { name: 'bug', req: { method: 'GET', url: '/boom' }, status: 500, slug: 'internal-error' },
  ];
  for (const c of cases) {
    const res = await app.inject(c.req);
    t.equal(res.statusCode, c.status, `${c.name}: status`);
    t.match(res.headers['content-type'], /^application\/problem\+json/, `${c.name}: media type`);
    const body = res.json();
    t.equal(body.type, `${BASE}/errors/${c.slug}`, `${c.name}: type`);
    t.equal(body.status, c.status, `${c.name}: status member`);
    t.type(body.title, 'string');
  }
});

t.test('details: pointers, Allow, headers, no internals', async (t) => {
  const app = build();
  const v = (await app.inject({ method: 'POST', url: '/things', payload: { name: 'a', size: 3, tags: ['x', 5], extra: 1 } })).json();
  t.same(v.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/extra', '/tags/1']);
  const missing = (await app.inject({ method: 'POST', url: '/things', payload: { name: 'a' } })).json();
  t.same(missing.errors, [{ in: 'body', pointer: '/size', message: 'is required' }]);
  const m = await app.inject({ method: 'PUT', url: '/things/7' });
  t.equal(m.headers.allow, 'GET, HEAD');
  const dup = (
    await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{"a":{"b":1,"b":2}}' })
  ).json();
  t.equal(dup.pointer, '/a/b');
  t.equal(dup.code, 'duplicate_key');
  const tea = await app.inject({ method: 'GET', url: '/teapot' });
  t.equal(tea.headers['retry-after'], '3');
  t.equal(tea.json().hint, 'later');
  const boom = await app.inject({ method: 'GET', url: '/boom' });
  t.notMatch(boom.body, /secret internals/);
});

t.test('creating an app, with or without request logging, prints no deprecation warning', async (t) => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  t.teardown(() => process.off('warning', onWarning));
  for (const disableRequestLogging of [true, false]) {
    const app = createHttpApp({ baseUrl: 'http://dev', disableRequestLogging });
    app.get('/x', async () => ({ ok: true }));
    t.equal((await app.inject({ method: 'GET', url: '/x' })).statusCode, 200);
    await app.close();
  }
  await new Promise((r) => setImmediate(r)); // process warnings are emitted on the next tick
  t.same(warnings, []);
});
