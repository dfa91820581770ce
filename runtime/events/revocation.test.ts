/**
 * Revocation bites at once: a revoked token's SSE feed ends, its WebSocket feed and MQTT session close, and its
 * webhooks stop, while another token's stay up. Also the per-token caps of feeds, subscriptions and MCP requests.
 * Over real sockets against the whole hub; every wait is on an event, with a generous bound.
 */
import mqtt from 'mqtt';
import t from 'tap';
import WebSocket from 'ws';
import { startFullHub } from '../../test-support/hub-app.js';
import { tripEvent } from './testing.js';

const BOUND = 20_000;

/** Open the SSE feed; resolves once the head is in, with a promise that settles when the stream ends. */
async function openSse(url: string, token: string) {
  const res = await fetch(`${url}/svc/v1/events`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200 || !res.body) return { status: res.status, body: await res.json(), ended: Promise.resolve(false) };
  const reader = res.body.getReader();
  const ended = (async () => {
    for (;;) {
      const { done } = await reader.read().catch(() => ({ done: true }));
      if (done) return true;
    }
  })();
  return { status: 200, body: undefined, ended, cancel: () => reader.cancel().catch(() => {}) };
}

function openWs(url: string, token: string) {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/svc/v1/events/ws`, { headers: { authorization: `Bearer ${token}` } });
  const opened = new Promise<number>((resolve) => {
    ws.once('open', () => resolve(101));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', () => resolve(0));
  });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  return { ws, opened, closed };
}

const bounded = <T>(p: Promise<T>, what: string) =>
  Promise.race([
    p,
    new Promise<never>((_r, reject) => setTimeout(() => reject(new Error(`${what}: not within ${BOUND} ms`)), BOUND).unref()),
  ]);

t.test('revoking a token closes its SSE, WebSocket and MQTT sessions and stops its webhooks', async (t) => {
  const h = await startFullHub();
  t.teardown(() => h.close());
  const gone = h.newToken(['read', 'notify'], 'human', 'tablet');
  const kept = h.newToken(['read'], 'human', 'display');

  const sse = await openSse(h.url, gone.token);
  t.equal(sse.status, 200, 'SSE open');
  const keptSse = await openSse(h.url, kept.token);
  const ws = openWs(h.url, gone.token);
  t.equal(await ws.opened, 101, 'WebSocket open');
  const client = await mqtt.connectAsync(h.mqttUrl, { protocolVersion: 5, reconnectPeriod: 0, username: 'tablet', password: gone.token });
  const mqttClosed = new Promise<void>((resolve) => client.once('close', () => resolve()));
  t.teardown(() => client.endAsync(true).catch(() => {}));

  // A webhook to a receiver that is not there: its deliveries stay pending, retried.
  const sub = await fetch(`${h.url}/svc/v1/subscriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gone.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', types: ['svc.safety.'], secret: 'a-secret-of-sixteen+' }),
  });
  t.equal(sub.status, 201, 'subscribed');
  const subId = ((await sub.json()) as { id: string }).id;
  const store = h.events.webhooks?.store;
  if (!store) throw new Error('no webhooks');
  h.app.ctx.bus.emit('safety', tripEvent());
  t.ok(store.stats(subId).pending + store.stats(subId).failed >= 1, 'a delivery was queued before the revocation');

  t.equal(h.app.ctx.tokens.revoke('tablet'), 1);
  t.equal(await bounded(sse.ended, 'SSE end'), true, 'the SSE feed ended');
  t.equal(await bounded(ws.closed, 'WebSocket close'), 1008, 'the WebSocket closed with 1008 (policy)');
  await bounded(mqttClosed, 'MQTT close');
  t.pass('the MQTT session was closed');
  await bounded(
    (async () => {
      while (store.stats(subId).pending > 0) await new Promise((r) => setTimeout(r, 20));
    })(),
    'webhook deliveries dropped',
  );
  const before = store.stats(subId);
  t.equal(before.pending, 0, 'no delivery of the revoked token is pending');
  h.app.ctx.bus.emit('safety', tripEvent(new Date().toISOString(), 'second'));
  t.same(store.stats(subId), before, 'a new event queues nothing for the revoked token');

  const r = await fetch(`${h.url}/svc/v1/events`, { headers: { authorization: `Bearer ${gone.token}` } });
  t.equal(r.status, 401, 'and the token cannot open a new feed');
  let keptEnded = false;
  void keptSse.ended.then(() => {
    keptEnded = true;
  });
  await new Promise((r) => setImmediate(r));
  t.notOk(keptEnded, 'another token’s feed stays open');
  keptSse.cancel?.();
});

t.test('per-token caps: event feeds, subscriptions and MCP requests answer 429 rate-limited', async (t) => {
  const h = await startFullHub();
  t.teardown(() => h.close());
  const { token } = h.newToken(['read', 'notify']);
  const feeds = [];
  for (let i = 0; i < 8; i++) feeds.push(await openSse(h.url, token));
  t.ok(
    feeds.every((f) => f.status === 200),
    'eight feeds open',
  );
  const ninth = await openSse(h.url, token);
  t.equal(ninth.status, 429, 'the ninth SSE feed is refused');
  t.match(ninth.body, { type: /\/errors\/rate-limited$/, status: 429 });
  const ws = openWs(h.url, token);
  t.equal(await ws.opened, 429, 'a WebSocket feed beyond the cap is refused before the upgrade');
  const other = await openSse(h.url, h.newToken(['read']).token);
  t.equal(other.status, 200, 'another token is not held back');
  for (const f of feeds) await f.cancel?.();
  await bounded(
    (async () => {
      for (;;) {
        const again = await openSse(h.url, token);
        if (again.status === 200) return again.cancel?.();
        await new Promise((r) => setTimeout(r, 50));
      }
    })(),
    'a slot after closing',
  );
  t.pass('closing feeds frees the slots');
  other.cancel?.();

  const subscribe = (i: number) =>
    fetch(`${h.url}/svc/v1/subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:9/hook/${i}`, types: ['svc.safety.'], secret: 'a-secret-of-sixteen+' }),
    });
  for (let i = 0; i < 20; i++) t.equal((await subscribe(i)).status, 201);
  const over = await subscribe(20);
  t.equal(over.status, 429, 'the 21st subscription is refused');
  t.match(await over.json(), { type: /\/errors\/rate-limited$/ });

  // MCP: the SDK loads on the first request, so requests sent at once are all in flight together.
  const mcp = await Promise.all(
    Array.from({ length: 6 }, () =>
      h.app.ctx.http.inject({
        method: 'POST',
        url: '/svc/v1/mcp',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      }),
    ),
  );
  const statuses = mcp.map((r) => r.statusCode).sort();
  t.same(statuses.filter((s) => s === 429).length, 2, `two of six MCP requests in flight at once are refused (${statuses})`);
  t.match(mcp.find((r) => r.statusCode === 429)?.json(), { type: /\/errors\/rate-limited$/ });
});
