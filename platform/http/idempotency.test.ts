import Database from 'better-sqlite3';
import t from 'tap';
import { MigrationRegistry } from '../sqlite/migrations.js';
import { createHttpApp } from './app.js';
import { IdempotencyStore, idempotencyMigration, installIdempotency, MIN_RETENTION_MS, parseIdempotencyKey } from './idempotency.js';

function setup(now: { t: number }) {
  const db = new Database(':memory:');
  new MigrationRegistry().add(idempotencyMigration).migrate(db);
  const store = new IdempotencyStore(db, { now: () => now.t });
  const app = createHttpApp({ baseUrl: 'http://x' });
  let counter = 0;
  let gate: Promise<void> = Promise.resolve();
  const principal = { value: 'alice' };
  installIdempotency(app, { store, principalOf: () => principal.value });
  app.post('/orders', { config: { idempotency: 'required' } }, async (_req, reply) => {
    counter++;
    await gate;
    return reply.code(201).header('etag', `"${counter}"`).send({ n: counter });
  });
  app.post('/maybe', { config: { idempotency: 'optional' } }, async () => ({ n: ++counter }));
  app.post('/fail', { config: { idempotency: 'required' } }, async () => {
    counter++;
    throw new Error('down');
  });
  return {
    db,
    app,
    store,
    principal,
    count: () => counter,
    hold: () => {
      let release = () => {};
      gate = new Promise<void>((r) => {
        release = r;
      });
      return () => {
        gate = Promise.resolve();
        release();
      };
    },
  };
}

const post = (key: string | undefined, payload: unknown, url = '/orders') => ({
  method: 'POST' as const,
  url,
  headers: key === undefined ? {} : { 'idempotency-key': key },
  payload: payload as Record<string, unknown>,
});

t.test('header grammar', (t) => {
  t.equal(parseIdempotencyKey('abcdefgh'), 'abcdefgh');
  t.equal(parseIdempotencyKey('"abc def gh"'), 'abc def gh');
  t.equal(parseIdempotencyKey('"abc\\"defgh"'), 'abc"defgh');
  t.equal(parseIdempotencyKey('short'), undefined);
  t.equal(parseIdempotencyKey('x'.repeat(129)), undefined);
  t.equal(parseIdempotencyKey('x'.repeat(128)), 'x'.repeat(128));
  t.equal(parseIdempotencyKey('has space in it'), undefined);
  t.equal(parseIdempotencyKey('"unterminated'), undefined);
  t.equal(parseIdempotencyKey('"bad\\escape1"'), undefined);
  t.equal(parseIdempotencyKey('"tab\there1"'), undefined);
  t.end();
});

t.test('replay, reuse, missing', async (t) => {
  const now = { t: 1_000_000 };
  const s = setup(now);
  const a = await s.app.inject(post('key-00001', { a: 1, b: 2 }));
  t.equal(a.statusCode, 201);
  // Same body with keys in another order: canonical JSON makes it the same request.
  const b = await s.app.inject({
    ...post('"key-00001"', {}),
    payload: '{"b":2,"a":1}',
    headers: { 'idempotency-key': '"key-00001"', 'content-type': 'application/json' },
  });
  t.equal(b.statusCode, 201);
  t.equal(b.body, a.body);
  t.equal(b.headers.etag, a.headers.etag);
  t.equal(b.headers['idempotent-replayed'], 'true');
  t.equal(s.count(), 1, 'handler ran once');
  const c = await s.app.inject(post('key-00001', { a: 2 }));
  t.equal(c.statusCode, 422);
  t.equal(c.json().type, 'http://x/errors/idempotency-key-reused');
  const d = await s.app.inject(post(undefined, { a: 1 }));
  t.equal(d.statusCode, 400);
  t.equal(d.json().type, 'http://x/errors/idempotency-key-missing');
  const e = await s.app.inject(post('tiny', { a: 1 }));
  t.equal(e.statusCode, 400);
  t.equal(s.count(), 1);
  // Another principal or route has its own key space.
  s.principal.value = 'bob';
  t.equal((await s.app.inject(post('key-00001', { a: 2 }))).statusCode, 201);
  t.equal((await s.app.inject(post('key-00001', { a: 2 }, '/maybe'))).statusCode, 200);
  t.equal(s.count(), 3);
  // Optional routes run without a key every time.
  await s.app.inject(post(undefined, {}, '/maybe'));
  await s.app.inject(post(undefined, {}, '/maybe'));
  t.equal(s.count(), 5);
});

t.test('in flight is 409, 5xx is not stored', async (t) => {
  const s = setup({ t: 5 });
  const release = s.hold();
  const first = s.app.inject(post('key-flight', { x: 1 }));
  // Wait until the first is inside the handler (held at the gate), however long that takes on a loaded machine.
  for (const end = Date.now() + 30_000; s.count() === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 5));
  t.equal(s.count(), 1, 'the first request is being handled');
  const second = await s.app.inject(post('key-flight', { x: 1 }));
  t.equal(second.statusCode, 409);
  t.equal(second.json().type, 'http://x/errors/idempotency-key-in-flight');
  release();
  t.equal((await first).statusCode, 201);
  t.equal((await s.app.inject(post('key-flight', { x: 1 }))).statusCode, 201);
  t.equal(s.count(), 1);
  t.equal((await s.app.inject(post('key-fail1', {}, '/fail'))).statusCode, 500);
  t.equal((await s.app.inject(post('key-fail1', {}, '/fail'))).statusCode, 500);
  t.equal(s.count(), 3, 'a failed request can be retried');
});

t.test('keys live at least 24 h, then expire; crashes leave no in-flight claim', async (t) => {
  const now = { t: 0 };
  const s = setup(now);
  await s.app.inject(post('key-ttl-1', { v: 1 }));
  now.t = MIN_RETENTION_MS - 1;
  t.equal((await s.app.inject(post('key-ttl-1', { v: 2 }))).statusCode, 422, 'still remembered just before 24 h');
  now.t = MIN_RETENTION_MS + 1;
  t.equal((await s.app.inject(post('key-ttl-1', { v: 2 }))).statusCode, 201, 'forgotten after 24 h');
  t.equal(new IdempotencyStore(s.db, { ttlMs: 1000 }) instanceof IdempotencyStore, true);
  s.store.begin({ principal: 'p', route: 'r', key: 'k' }, 'h');
  t.equal(s.store.begin({ principal: 'p', route: 'r', key: 'k' }, 'h').kind, 'in_flight');
  t.equal(s.store.clearInFlight(), 1);
  t.equal(s.store.begin({ principal: 'p', route: 'r', key: 'k' }, 'h').kind, 'new');
});

t.test('keys are scoped to the normalized route: a trailing or doubled slash is a replay, not a second run', async (t) => {
  const s = setup({ t: 1 });
  let things = 0;
  s.app.post('/things/:id/cook', { config: { idempotency: 'required' } }, async (req) => ({
    id: (req.params as { id: string }).id,
    n: ++things,
  }));
  const first = await s.app.inject(post('key-slash1', { a: 1 }));
  t.equal(first.statusCode, 201);
  for (const url of ['/orders/', '//orders', '//orders//', '/orders?x=1']) {
    const again = await s.app.inject(post('key-slash1', { a: 1 }, url));
    t.equal(again.statusCode, 201, url);
    t.equal(again.headers['idempotent-replayed'], 'true', `${url} replayed`);
    t.equal(again.body, first.body);
  }
  t.equal(s.count(), 1, 'the handler ran once for every spelling');
  t.equal((await s.app.inject(post('key-slash2', { a: 1 }, '/things/a/cook'))).statusCode, 200);
  const encoded = await s.app.inject(post('key-slash2', { a: 1 }, '/things/%61/cook/'));
  t.equal(encoded.headers['idempotent-replayed'], 'true', 'a percent-encoded parameter is the same resource');
  const other = await s.app.inject(post('key-slash2', { a: 1 }, '/things/b/cook'));
  t.equal(other.statusCode, 200);
  t.notOk(other.headers['idempotent-replayed'], 'another resource has its own key space');
  t.equal(things, 2);
});
