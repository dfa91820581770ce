/**
 * Notifications over a real socket: `POST /svc/v1/notify` puts a `svc.notify.message` on the bus (the schema
 * test checks its shape) with the audience and urgency normalized; refusals by status and slug; the per-token
 * rate limit runs on the hub's clock (429 `rate-limited` with Retry-After, and the same Idempotency-Key works
 * again once time has passed), while a safety event in the middle of a flood still goes out; the acknowledgement;
 * the MCP tool `notify` shares the service and the budget.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import type { BusEvents } from '../../events/bus.js';
import { startHub } from '../test-helpers.js';

const note = (extra: Record<string, unknown> = {}) => ({
  audience: 'household',
  urgency: 'normal',
  message: { en: 'Dinner at 7' },
  ...extra,
});

t.test('notify: the bus event, audience and urgency, refusals, the list and the acknowledgement', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const seen: BusEvents['notify'][] = [];
  t.teardown(h.app.ctx.bus.on('notify', (e) => seen.push(e)));
  const agent = h.token(['notify'], 'agent', 'dinner agent');
  const reader = h.token(['read']);

  const sent = await h.call('POST', '/svc/v1/notify', {
    token: agent,
    body: note({
      audience: ['cook', 'human:amal', 'device:speaker-1'],
      urgency: 'time_critical',
      actions: [{ id: 'seen', label: { en: 'Seen' } }],
    }),
  });
  t.equal(sent.status, 202, JSON.stringify(sent.body));
  t.match(sent.body, { state: 'delivered', urgency: 'time_critical', audience: ['role:cook', 'human:amal', 'device:speaker-1'] });
  t.equal(seen.length, 1, 'one bus event');
  t.match(seen[0], { kind: 'message', notification: { id: sent.body.id, from: { kind: 'agent' }, message: { en: 'Dinner at 7' } } });

  const alias = await h.call('POST', '/svc/v1/notify', { token: agent, body: note({ urgency: 'critical' }) });
  t.equal(alias.body.urgency, 'emergency', 'the older word critical is the reference’s emergency');
  t.same(alias.body.audience, ['role:household']);

  // A notification about a session carries it, so `?session=` on the event stream finds it.
  const session = h.hub.sessions.create(
    { recipes: [{ recipeId: 'example-shakshuka' }], serveAt: '2026-06-01T19:00:00Z', mode: 'assisted' },
    { id: 'tok_x', name: 'x', kind: 'human', scopes: ['cook'] },
  );
  await h.call('POST', '/svc/v1/notify', { token: agent, body: note({ relatesTo: session.id }) });
  t.equal(seen.at(-1)?.sessionId, session.id);
  await h.call('POST', '/svc/v1/notify', { token: agent, body: note({ relatesTo: 'order-17' }) });
  t.equal(seen.at(-1)?.sessionId, undefined, 'not a session: no session');

  for (const [body, why] of [
    [note({ urgency: 'urgent' }), 'an unknown urgency'],
    [note({ audience: 'neighbours' }), 'an unknown audience word'],
    [note({ audience: [] }), 'an empty audience'],
    [note({ audience: 'human:a/b' }), 'an audience id with a slash'],
    [note({ message: {} }), 'an empty message'],
    [note({ expiresAt: '2020-01-01T00:00:00Z' }), 'an expiry in the past'],
    [note({ extra: 1 }), 'an unknown member'],
  ] as const) {
    const r = await h.call('POST', '/svc/v1/notify', { token: agent, body });
    t.equal(r.status, 422, why);
    t.match(r.body.type, /validation-failed$/, why);
  }
  t.equal((await h.call('POST', '/svc/v1/notify', { token: reader, body: note() })).status, 403, 'read cannot notify');
  t.equal((await h.call('POST', '/svc/v1/notify', { body: note() })).status, 401);

  const list = await h.call('GET', '/svc/v1/notifications?audience=human:amal', { token: reader });
  t.equal(list.status, 200);
  t.same(
    (list.body.items as { id: string }[]).map((n) => n.id),
    [sent.body.id],
    'the list narrows to an audience',
  );

  const badAction = await h.call('POST', `/svc/v1/notifications/${sent.body.id}/ack`, { token: reader, body: { actionId: 'nope' } });
  t.equal(badAction.status, 422, 'an action the notification does not offer');
  const ack = await h.call('POST', `/svc/v1/notifications/${sent.body.id}/ack`, { token: reader, body: { actionId: 'seen' } });
  t.equal(ack.status, 200);
  t.match(ack.body, { acknowledged: { actionId: 'seen', by: { kind: 'human' } } });
  t.equal(seen.at(-1)?.kind, 'acknowledged');
  const again = await h.call('POST', `/svc/v1/notifications/${sent.body.id}/ack`, { token: reader });
  t.equal(again.status, 200, 'acknowledging twice is harmless');
  t.equal(seen.filter((e) => e.kind === 'acknowledged').length, 1, 'and sends no second event');
  t.equal((await h.call('POST', '/svc/v1/notifications/ntf-nope/ack', { token: reader })).status, 404);
  t.equal((await h.call('POST', `/svc/v1/notifications/${sent.body.id}/ack`, { token: reader, body: [1] })).status, 422);
});

t.test('the rate limit: per token, on the hub’s clock, with Retry-After; safety is never held back', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const flood = h.token(['notify'], 'agent', 'chatty agent');
  const other = h.token(['notify'], 'agent', 'quiet agent');
  const safety: BusEvents['safety'][] = [];
  t.teardown(h.app.ctx.bus.on('safety', (e) => safety.push(e)));

  for (let i = 0; i < 10; i++) {
    const r = await h.call('POST', '/svc/v1/notify', { token: flood, body: note({ message: { en: `n${i}` } }) });
    t.equal(r.status, 202, `notification ${i + 1} of the burst`);
  }
  const key = 'notify-retry-0001';
  const limited = await h.call('POST', '/svc/v1/notify', { token: flood, body: note(), key });
  t.equal(limited.status, 429, 'the eleventh at once is refused');
  t.match(limited.body.type, /rate-limited$/);
  t.equal(limited.headers.get('retry-after'), '6', 'ten a minute: one is back in 6 s');
  t.equal(limited.body.retryAfter, 6);

  // The flood does not touch the e-stop (even from the limited token) or another sender.
  const stop = await h.call('POST', '/svc/v1/safety/estop', { token: flood, body: { reason: 'smoke' } });
  t.equal(stop.status, 202, 'the limited token can still stop');
  // A REST e-stop is two events for one trip: heat cut before the body is read, then the body's reason.
  const stops = safety.filter((e) => e.kind === 'estop');
  t.equal(stops.length, 2, 'the e-stop events went out in the middle of the flood');
  t.ok(
    stops.some((e) => JSON.stringify(e).includes('smoke')),
    'with the reason the limited token gave',
  );
  t.ok(
    [...h.app.ctx.rig.heaters.values()].every((x) => x.power === 0),
    'and heat is off',
  );
  t.equal((await h.call('POST', '/svc/v1/notify', { token: other, body: note() })).status, 202, 'another token has its own budget');

  h.clock.advance(5_000);
  t.equal((await h.call('POST', '/svc/v1/notify', { token: flood, body: note(), key })).status, 429, 'not yet after 5 s');
  h.clock.advance(1_000);
  const retried = await h.call('POST', '/svc/v1/notify', { token: flood, body: note(), key });
  t.equal(retried.status, 202, 'after Retry-After the same Idempotency-Key runs the request');
  t.equal((await h.call('POST', '/svc/v1/notify', { token: flood, body: note() })).status, 429, 'and the budget is spent again');
  h.clock.advance(60_000);
  for (let i = 0; i < 10; i++)
    t.equal((await h.call('POST', '/svc/v1/notify', { token: flood, body: note() })).status, 202, `refilled ${i + 1}`);
});

t.test('the MCP tool notify: same service, same budget, refusals as tool errors', async (t) => {
  const h = await startHub();
  t.teardown(() => h.close());
  const token = h.token(['notify'], 'agent', 'mcp agent');
  const mcp = new Client({ name: 'notify test', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/svc/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  t.teardown(() => mcp.close());
  const seen: BusEvents['notify'][] = [];
  t.teardown(h.app.ctx.bus.on('notify', (e) => seen.push(e)));
  const r = await mcp.callTool({
    name: 'notify',
    arguments: { audience: ['household'], urgency: 'info', message: { en: 'The rice is soaking' } },
  });
  t.notOk(r.isError);
  t.match(r.structuredContent, { state: 'delivered', urgency: 'info', audience: ['role:household'] });
  t.equal(seen.length, 1, 'on the bus');
  for (let i = 0; i < 9; i++) await h.call('POST', '/svc/v1/notify', { token, body: note() });
  const limited = await mcp.callTool({
    name: 'notify',
    arguments: { audience: 'household', urgency: 'info', message: { en: 'one more' } },
  });
  t.ok(limited.isError, 'the REST and MCP doors share one budget');
  t.match(limited.structuredContent, { error: 'rate-limited' });
});
