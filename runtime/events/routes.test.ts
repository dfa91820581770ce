import { EventSource } from 'eventsource';
import type { FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import { createHttpApp } from '../../platform/http/app.js';
import { installBearerAuth } from '../../platform/http/auth.js';
import { installEventRoutes } from './routes.js';
import { type Kitchen, makeKitchen, tripEvent, until } from './testing.js';

const now = () => new Date().toISOString();
const task = (k: Kitchen, id: string, sessionId = 's1') =>
  k.bus.emit('task.updated', { taskId: id, sessionId, state: 'running', at: now(), task: { id } });

async function setup(t: Test) {
  const k = makeKitchen();
  const app: FastifyInstance = createHttpApp({ baseUrl: 'http://hub.test' });
  installBearerAuth(app, { tokens: k.tokens });
  const feeds = await installEventRoutes(app, { hub: k.hub, journal: k.journal, retryMs: 50, keepAliveMs: 60_000 });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const reader = k.tokens.create({ name: 'ui', scopes: ['read'] }).token;
  t.teardown(async () => {
    feeds.close();
    await app.close();
    k.db.close();
  });
  return { k, app, base, feeds, reader };
}

function sse(url: string, token: string) {
  const got: { id: string; ce: { id: string; type: string; data: Record<string, unknown>; svcsession?: string } }[] = [];
  const es = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers ?? {}), Authorization: `Bearer ${token}` } }),
  });
  es.onmessage = (m) => got.push({ id: m.lastEventId, ce: JSON.parse(m.data) });
  const opened = new Promise<void>((resolve, reject) => {
    es.onopen = () => resolve();
    es.onerror = (e) => {
      if (es.readyState === EventSource.CLOSED) reject(new Error(`SSE failed: ${e.message ?? e.code}`));
    };
  });
  return { es, got, opened };
}

t.test('SSE: filtered by type prefixes; resumes with Last-Event-ID after the server drops the stream', async (t) => {
  const { k, base, feeds, reader } = await setup(t);
  const s = sse(`${base}/svc/v1/events?types=svc.task.,svc.safety.`, reader);
  t.teardown(() => s.es.close());
  await s.opened;
  task(k, 't1');
  k.bus.emit('telemetry', { sensor: 'oil', svcSensor: 'oil_temp', tempC: 100, at: now() });
  k.bus.emit('safety', tripEvent());
  await until(() => s.got.length === 2, 30_000, 'two events');
  t.same(
    s.got.map((g) => g.ce.type),
    ['svc.task.updated', 'svc.safety.limit_tripped'],
  );
  t.equal(s.got[0]?.id, String(k.journal.positionOf(s.got[0]!.ce.id)), 'the SSE id is the journal position');

  feeds.close(); // the hub drops every stream; the client reconnects on its own with Last-Event-ID
  task(k, 't2');
  task(k, 't3');
  await until(() => s.got.length === 4, 30_000, 'replayed events');
  t.same(
    s.got.map((g) => g.ce.data.taskId ?? g.ce.type),
    ['t1', 'svc.safety.limit_tripped', 't2', 't3'],
    'what was missed is replayed once, in order',
  );
  task(k, 't4');
  await until(() => s.got.length === 5, 30_000, 'live again');
  t.equal(new Set(s.got.map((g) => g.ce.id)).size, 5, 'no duplicates');
});

t.test('SSE: explicit Last-Event-ID (position or event id), session filter, scopes, errors', async (t) => {
  const { k, base, reader } = await setup(t);
  task(k, 'a', 's1');
  task(k, 'b', 's2');
  task(k, 'c', 's1');
  k.bus.emit('safety', tripEvent());
  const first = k.journal.readAfter(0, 1)[0]!;

  const read = async (path: string, headers: Record<string, string>, want: number) => {
    const ac = new AbortController();
    const res = await fetch(`${base}${path}`, { headers, signal: ac.signal });
    if (res.status !== 200)
      return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as { detail: string } };
    const reader = res.body!.getReader();
    let text = '';
    while ((text.match(/^data: /gm) ?? []).length < want) text += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    return {
      status: 200,
      type: res.headers.get('content-type'),
      events: [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!)),
    };
  };
  const auth = { Authorization: `Bearer ${reader}` };
  const r1 = await read('/svc/v1/events?session=s1', { ...auth, 'Last-Event-ID': String(first.pos) }, 2);
  t.equal(r1.type, 'text/event-stream; charset=utf-8');
  t.same(
    r1.events?.map((e) => e.data.taskId ?? e.type),
    ['c', 'svc.safety.limit_tripped'],
    'session s1 after the first event: c, and the kitchen-wide safety event',
  );
  const r2 = await read('/svc/v1/events', { ...auth, 'Last-Event-ID': first.ce.id }, 3);
  t.same(
    r2.events?.map((e) => e.data.taskId ?? e.type),
    ['b', 'c', 'svc.safety.limit_tripped'],
    'a CloudEvent id works as Last-Event-ID too',
  );

  const cook = k.tokens.create({ name: 'bot', scopes: ['cook'] }).token;
  const r3 = await read('/svc/v1/events', { Authorization: `Bearer ${cook}`, 'Last-Event-ID': '0' }, 1);
  t.same(
    r3.events?.map((e) => e.type),
    ['svc.safety.limit_tripped'],
    'without read a token sees safety events only',
  );

  const r4 = await read('/svc/v1/events', {}, 0);
  t.equal(r4.status, 401);
  t.match(r4.type, /^application\/problem\+json/);
  const r5 = await read('/svc/v1/events?types=task', auth, 0);
  t.equal(r5.status, 400);
  t.match(r5.body?.detail, /not a type prefix/);
  const r6 = await read('/svc/v1/events', { ...auth, 'Last-Event-ID': 'nope' }, 0);
  t.equal(r6.status, 400);
  t.match(r6.body?.detail, /not a journalled event/);
});

t.test('WebSocket feed: CloudEvent frames, filters, resume with after', async (t) => {
  const { k, base, reader } = await setup(t);
  const wsBase = base.replace(/^http/, 'ws');
  const open = (query: string, token: string | undefined) => {
    const frames: { id: string; type: string; data: Record<string, unknown> }[] = [];
    const ws = new WebSocket(`${wsBase}/svc/v1/events/ws${query}`, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    const ready = new Promise<void>((resolve, reject) => {
      ws.on('open', () => resolve());
      ws.on('unexpected-response', (req, res) => {
        req.destroy();
        reject(new Error(`HTTP ${res.statusCode}`));
      });
      ws.on('error', reject);
    });
    t.teardown(() => {
      if (ws.readyState === WebSocket.OPEN) ws.close();
    });
    return { ws, frames, ready };
  };
  const a = open('?types=svc.task.', reader);
  await a.ready;
  task(k, 'w1');
  k.bus.emit('heater', { heater: 'h1', power: 0.5, at: now() });
  task(k, 'w2');
  await until(() => a.frames.length === 2, 30_000, 'ws frames');
  t.same(
    a.frames.map((f) => f.data.taskId),
    ['w1', 'w2'],
  );
  a.ws.close();
  task(k, 'w3');
  const b = open(`?types=svc.task.&after=${a.frames[1]!.id}`, reader);
  await b.ready;
  await until(() => b.frames.length === 1, 30_000, 'resumed frame');
  t.equal(b.frames[0]?.data.taskId, 'w3');

  await t.rejects(open('', undefined).ready, /HTTP 401/, 'no token: refused before the upgrade');
  await t.rejects(open('?types=bad', reader).ready, /HTTP 400/, 'a bad filter: 400 before the upgrade');
});
